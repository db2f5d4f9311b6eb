// "Campaign" and §6 "Per-recipient ledger" in the domain, without HTTP: the state machine and
// its exact error texts, schedule validations, the frozen audience (active members of groups and segments,
// each once, minus suppressions). The steps the send workers run on the ledger are tested with delivery/.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { audienceCount } from '../../../src/domain/campaigns/ledger.ts';
import { NotFound, StateConflict, Validation } from '../../../src/domain/errors.ts';
import { forgetSubscriber } from '../../../src/domain/forget/forget.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as segments from '../../../src/domain/segments/segments.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as suppressions from '../../../src/domain/subscribers/suppressions.ts';
import { migratedDb } from '../../support/db.ts';
import { groupOf, newAccount } from '../../support/domain.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'domain-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'domain-secret',
};
const { db } = await migratedDb();

const MISSING = '00000000-0000-4000-8000-000000000000';
const future = () => new Date(Date.now() + 3_600_000).toISOString();

const account = () => newAccount(db, 'Campaigns');
const withAudience = (acc: string, emails: string[]) => groupOf(db, acc, emails);

async function ready(acc: string, extra: campaigns.NewCampaign | object = {}) {
  const groupId = await withAudience(acc, [`a-${randomUUID()}@x.test`]);
  return campaigns.create(db, acc, {
    name: 'Ready',
    subject: 'Hi {{ subscriber.first_name }}',
    content_html: '<p>Hi</p>',
    group_ids: [groupId],
    ...extra,
  });
}

async function rejects(
  p: Promise<unknown>,
  kind: typeof Validation | typeof StateConflict | typeof NotFound,
  message: string | RegExp,
  field?: string,
) {
  await assert.rejects(p, (err: any) => {
    assert.ok(err instanceof kind, `expected ${kind.name}, got ${err?.constructor?.name}: ${err?.message}`);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    const fields = (err as { fields?: Record<string, string[]> }).fields;
    if (field) assert.ok(fields?.[field], `no ${field} in ${JSON.stringify(fields)}`);
    return true;
  });
}

describe('Campaign create and update', () => {
  test('create: a draft with stats all zero; name is required', async () => {
    const acc = await account();
    const c = await campaigns.create(db, acc, { name: 'First' });
    assert.equal(c.status, 'draft');
    assert.equal(c.stats.recipients, 0);
    assert.deepEqual(c.group_ids, []);
    await rejects(campaigns.create(db, acc, { name: '' }), Validation, 'name: Name is required', 'name');
  });

  test('a Liquid error is a Validation error at create and update, naming the field', async () => {
    const acc = await account();
    await rejects(
      campaigns.create(db, acc, { name: 'Bad', content_html: '{{ subscriber.first_name | shout }}' }),
      Validation,
      /^content_html: Template error: undefined filter: shout/,
      'content_html',
    );
    const c = await campaigns.create(db, acc, { name: 'Ok' });
    await rejects(
      campaigns.update(db, acc, c.id, { subject: '{% if x %}' }),
      Validation,
      /^subject: Template error/,
      'subject',
    );
  });

  test('group_ids and segment_ids must belong to the account', async () => {
    const acc = await account();
    const other = await account();
    const foreign = await groups.create(db, other, { name: 'Theirs' });
    await rejects(
      campaigns.create(db, acc, { name: 'X', group_ids: [foreign.id] }),
      Validation,
      `group_ids: Group not found: ${foreign.id}`,
      'group_ids',
    );
    await rejects(
      campaigns.create(db, acc, { name: 'X', segment_ids: [MISSING] }),
      Validation,
      `segment_ids: Segment not found: ${MISSING}`,
      'segment_ids',
    );
  });

  test('update changes only the given fields of a draft', async () => {
    const acc = await account();
    const c = await campaigns.create(db, acc, { name: 'Keep', subject: 'S1', content_html: '<p>1</p>' });
    const u = await campaigns.update(db, acc, c.id, { subject: 'S2' });
    assert.deepEqual([u.name, u.subject, u.content_html], ['Keep', 'S2', '<p>1</p>']);
  });

  test('spec: an update to a campaign that is not a draft → "Only draft campaigns can be updated"', async () => {
    const acc = await account();
    const c = await ready(acc);
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled', scheduled_at: future() });
    await rejects(
      campaigns.update(db, acc, c.id, { name: 'Late' }),
      StateConflict,
      'Only draft campaigns can be updated',
    );
  });

  test('another account\'s campaign id is "Campaign not found" for every operation', async () => {
    const acc = await account();
    const c = await ready(acc);
    const other = await account();
    for (const call of [
      () => campaigns.get(db, other, c.id),
      () => campaigns.update(db, other, c.id, { name: 'x' }),
      () => campaigns.remove(db, other, c.id),
      () => campaigns.schedule(db, config, other, c.id, { delivery: 'instant' }),
      () => campaigns.cancel(db, other, c.id),
      () => campaigns.recipients(db, other, c.id, {}),
    ]) {
      await rejects(call(), NotFound, 'Campaign not found');
    }
  });
});

describe('Campaign schedule and cancel', () => {
  test('schedule requires subject, content and an audience (each named)', async () => {
    const acc = await account();
    const c = await campaigns.create(db, acc, { name: 'Empty' });
    await assert.rejects(campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' }), (err: any) => {
      assert.ok(err instanceof Validation);
      assert.deepEqual(Object.keys(err.fields).sort(), ['content_html', 'group_ids', 'subject']);
      return true;
    });
  });

  test('scheduled_at: required for scheduled, ISO 8601 with an offset, in the future', async () => {
    const acc = await account();
    const c = await ready(acc);
    await rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled' }),
      Validation,
      'scheduled_at: scheduled_at is required when delivery is scheduled',
      'scheduled_at',
    );
    await rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled', scheduled_at: '2099-01-01T10:00:00' }),
      Validation,
      /^scheduled_at: scheduled_at must be an ISO 8601 date-time with a UTC offset/,
      'scheduled_at',
    );
    await rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled', scheduled_at: '2020-01-01T10:00:00+02:00' }),
      Validation,
      'scheduled_at: scheduled_at must be in the future',
      'scheduled_at',
    );
    await rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'later' as 'instant' }),
      Validation,
      /^delivery: delivery must be one of: instant, scheduled/,
      'delivery',
    );
    const s = await campaigns.schedule(db, config, acc, c.id, {
      delivery: 'scheduled',
      scheduled_at: '2099-01-01T10:00:00+02:00',
    });
    assert.equal(s.status, 'scheduled');
    assert.equal(new Date(s.scheduled_at!).toISOString(), '2099-01-01T08:00:00.000Z');
  });

  test('spec: scheduling a scheduled campaign → "Campaign is already scheduled"; sent or sending ones cannot be scheduled', async () => {
    const acc = await account();
    const c = await ready(acc);
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled', scheduled_at: future() });
    await rejects(
      campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' }),
      StateConflict,
      'Campaign is already scheduled',
    );
    const d = await ready(acc);
    await campaigns.schedule(db, config, acc, d.id, { delivery: 'instant' });
    await rejects(
      campaigns.schedule(db, config, acc, d.id, { delivery: 'instant' }),
      StateConflict,
      'Only draft campaigns can be scheduled',
    );
  });

  test('cancel: scheduled → draft (editable again); sending → cancelled with every queued recipient skipped; draft → refused', async () => {
    const acc = await account();
    const c = await ready(acc);
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'scheduled', scheduled_at: future() });
    const back = await campaigns.cancel(db, acc, c.id);
    assert.deepEqual([back.status, back.scheduled_at], ['draft', null]);
    await campaigns.update(db, acc, c.id, { name: 'Edited after cancel' });
    await rejects(
      campaigns.cancel(db, acc, c.id),
      StateConflict,
      'Only scheduled or sending campaigns can be cancelled',
    );
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const stopped = await campaigns.cancel(db, acc, c.id);
    assert.equal(stopped.status, 'cancelled');
    assert.ok(stopped.cancelled_at);
    assert.deepEqual([stopped.stats.recipients, stopped.stats.skipped, stopped.stats.pending], [1, 1, 0]);
  });

  test('delete: refused while sending, allowed for drafts and finished campaigns (ledger goes too)', async () => {
    const acc = await account();
    const c = await ready(acc);
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    await rejects(campaigns.remove(db, acc, c.id), StateConflict, /cannot be deleted/);
    await campaigns.cancel(db, acc, c.id);
    await campaigns.remove(db, acc, c.id);
    await rejects(campaigns.get(db, acc, c.id), NotFound, 'Campaign not found');
    const left = await db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', c.id).execute();
    assert.equal(left.length, 0);
  });

  test('startDue starts only scheduled campaigns whose time has come', async () => {
    const acc = await account();
    const due = await ready(acc);
    const later = await ready(acc);
    await campaigns.schedule(db, config, acc, due.id, {
      delivery: 'scheduled',
      scheduled_at: new Date(Date.now() + 300).toISOString(),
    });
    await campaigns.schedule(db, config, acc, later.id, { delivery: 'scheduled', scheduled_at: future() });
    await new Promise((r) => setTimeout(r, 350));
    const started = await campaigns.startDue(db, config);
    assert.ok(started.includes(due.id));
    assert.ok(!started.includes(later.id));
    assert.equal((await campaigns.get(db, acc, due.id)).status, 'sending');
    assert.equal((await campaigns.get(db, acc, later.id)).status, 'scheduled');
  });
});

describe('Audience', () => {
  test('active members of the groups and segments, each once, minus suppressed addresses', async () => {
    const acc = await account();
    const g1 = await withAudience(acc, ['both@x.test', 'one@x.test', 'gone@x.test', 'forgot@x.test']);
    const g2 = await withAudience(acc, ['two@x.test']);
    await subscribers.create(db, acc, { email: 'seg@x.test', first_name: 'Segmented' });
    await subscribers.create(db, acc, { email: 'nobody@x.test' });
    const both = await subscribers.getFull(db, acc, { email: 'both@x.test' });
    await groups.assign(db, acc, g2, both.id);
    await subscribers.update(db, acc, (await subscribers.getFull(db, acc, { email: 'gone@x.test' })).id, {
      status: 'unsubscribed',
    });
    // forgotten, then explicitly re-added: it stays suppressed for campaigns
    await forgetSubscriber(db, config.secret, acc, (await subscribers.getFull(db, acc, { email: 'forgot@x.test' })).id);
    await subscribers.create(db, acc, { email: 'Forgot@X.test', group_ids: [g1] });
    assert.ok(await suppressions.isSuppressed(db, config.secret, acc, 'forgot@x.test'));
    const seg = await segments.create(db, acc, {
      name: 'Named',
      filter: { match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Segmented' }] },
    });
    const c = await campaigns.create(db, acc, {
      name: 'Aud',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [g1, g2],
      segment_ids: [seg.id],
    });
    const sending = await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    assert.equal(sending.status, 'sending');
    const rows = await db
      .selectFrom('campaign_recipients')
      .select('email')
      .where('campaign_id', '=', c.id)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      rows.map((r) => r.email),
      ['both@x.test', 'one@x.test', 'seg@x.test', 'two@x.test'],
    );
    assert.equal(sending.stats.recipients, 4);
  });

  test('the count and the freeze leave out suppressed addresses through recorded checks, and ask again when an address changes', async () => {
    const acc = await account();
    const g = await withAudience(acc, ['old@x.test', 'forgot@x.test', 'later@x.test']);
    const checks = () =>
      db
        .selectFrom('suppression_checks as c')
        .innerJoin('subscribers as s', 's.id', 'c.subscriber_id')
        .select(['s.email', 'c.suppressed'])
        .where('c.account_id', '=', acc)
        .orderBy('s.email')
        .execute();
    assert.deepEqual(await checks(), [], 'no suppressions yet: nothing to check');
    await forgetSubscriber(db, config.secret, acc, (await subscribers.getFull(db, acc, { email: 'forgot@x.test' })).id);
    // written after the account's first suppression: listed, not yet checked
    await subscribers.create(db, acc, { email: 'FORGOT@x.test', group_ids: [g] });
    await subscribers.create(db, acc, { email: 'new@x.test', group_ids: [g] });
    assert.deepEqual(await checks(), [
      { email: 'FORGOT@x.test', suppressed: null },
      { email: 'new@x.test', suppressed: null },
    ]);
    assert.equal(await audienceCount(db, config.secret, acc, [g], []), 3, 'old, later, new');
    assert.deepEqual(await checks(), [{ email: 'FORGOT@x.test', suppressed: true }], 'the answers are kept');
    assert.equal(await audienceCount(db, config.secret, acc, [g], []), 3, 'read from the check, not hashed again');
    // a segment alone, and with a group: members of both once, the suppressed one out of either branch
    await subscribers.create(db, acc, { email: 'solo@x.test', first_name: 'Seg' });
    for (const email of ['old@x.test', 'FORGOT@x.test'])
      await subscribers.update(db, acc, (await subscribers.getFull(db, acc, { email })).id, { first_name: 'Seg' });
    const seg = await segments.create(db, acc, {
      name: 'Seg',
      filter: { match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Seg' }] },
    });
    assert.equal(await audienceCount(db, config.secret, acc, [], [seg.id]), 2, 'solo, old');
    assert.equal(await audienceCount(db, config.secret, acc, [g], [seg.id]), 4, 'old, later, new, solo');
    await subscribers.remove(db, acc, (await subscribers.getFull(db, acc, { email: 'solo@x.test' })).id);

    // a changed address is checked again, whichever way it goes
    const swap = async (from: string, to: string) =>
      db
        .updateTable('subscribers')
        .set({ email: to })
        .where('account_id', '=', acc)
        .where('email', '=', from)
        .execute();
    await swap('FORGOT@x.test', 'back@x.test');
    await swap('later@x.test', 'forgot@x.test');
    assert.deepEqual(await checks(), [
      { email: 'back@x.test', suppressed: null },
      { email: 'forgot@x.test', suppressed: null },
    ]);
    assert.equal(await audienceCount(db, config.secret, acc, [g], []), 3, 'old, new, back');

    await swap('back@x.test', 'Forgot2@x.test');
    const c = await campaigns.create(db, acc, { name: 'A', subject: 's', content_html: '<p>x</p>', group_ids: [g] });
    const sending = await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const frozen = await db
      .selectFrom('campaign_recipients')
      .select('email')
      .where('campaign_id', '=', c.id)
      .orderBy('email')
      .execute();
    assert.deepEqual(
      frozen.map((r) => r.email),
      ['Forgot2@x.test', 'new@x.test', 'old@x.test'],
    );
    assert.equal(sending.stats.recipients, await audienceCount(db, config.secret, acc, [g], []));
    assert.deepEqual(await checks(), [{ email: 'forgot@x.test', suppressed: true }]);
  });
});

describe('Scheduled start after the audience changed', () => {
  test('a segment deleted after scheduling no longer contributes; the campaign still starts with its groups', async () => {
    const acc = await account();
    const g = await withAudience(acc, ['grp@x.test']);
    await subscribers.create(db, acc, { email: 'segonly@x.test', first_name: 'Gone' });
    const seg = await segments.create(db, acc, {
      name: 'Gone soon',
      filter: { match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Gone' }] },
    });
    const c = await campaigns.create(db, acc, {
      name: 'Later',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [g],
      segment_ids: [seg.id],
    });
    await campaigns.schedule(db, config, acc, c.id, {
      delivery: 'scheduled',
      scheduled_at: new Date(Date.now() + 200).toISOString(),
    });
    await segments.remove(db, acc, seg.id);
    await new Promise((r) => setTimeout(r, 250));
    assert.ok((await campaigns.startDue(db, config)).includes(c.id));
    const rows = await db.selectFrom('campaign_recipients').select('email').where('campaign_id', '=', c.id).execute();
    assert.deepEqual(
      rows.map((r) => r.email),
      ['grp@x.test'],
    );
  });
});

describe('Forgetting', () => {
  test('forget_subscriber erases the subscriber from every ledger', async () => {
    const acc = await account();
    const c = await ready(acc);
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const [row] = await db
      .selectFrom('campaign_recipients')
      .select(['subscriber_id'])
      .where('campaign_id', '=', c.id)
      .execute();
    await forgetSubscriber(db, config.secret, acc, row!.subscriber_id);
    assert.equal(
      (await db.selectFrom('campaign_recipients').select('id').where('campaign_id', '=', c.id).execute()).length,
      0,
    );
  });
});
