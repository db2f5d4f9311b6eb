// A form sign-up is one unit: the subscriber, its groups, the form's signup record, its counters and the
// form.submitted event (the form_submitted automation trigger) commit together or not at all. A trigger
// that refuses form.submitted for one account stands in for a crash between the writes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as forms from '../../../src/domain/forms/forms.ts';
import * as signups from '../../../src/domain/forms/signups.ts';
import type { MailTransport, OutgoingMessage } from '../../../src/mail/transport.ts';
import { migratedDb } from '../../support/db.ts';
import { createGroup, eventTypes } from '../../support/rows.ts';

const { db } = await migratedDb();
await sql`create function refuse_form_submitted() returns trigger language plpgsql as $$
  begin raise exception 'form.submitted refused for this test'; end $$`.execute(db);

const SECRET = 'test-secret-of-at-least-32-characters!!';
const sent: OutgoingMessage[] = [];
const transport: MailTransport = {
  kind: 'outbox',
  async send(msg) {
    sent.push(msg);
    return { ok: true, messageId: `m${sent.length}@test` };
  },
  async close() {},
};
const mail = { transport, config: { secret: SECRET, publicUrl: 'http://forms.test', MAIL_FROM: 'news@forms.test' } };

/** From now on, writing form.submitted fails for this account (and only for it); returns the undo. */
async function refuseFormSubmitted(accountId: string): Promise<() => Promise<void>> {
  const name = sql.id(`refuse_${accountId.replace(/-/g, '')}`);
  await sql`create trigger ${name} before insert on events for each row
    when (new.type = 'form.submitted' and new.account_id = ${sql.lit(accountId)}::uuid) execute function refuse_form_submitted()`.execute(
    db,
  );
  return async () => void (await sql`drop trigger ${name} on events`.execute(db));
}

async function setup(doubleOptIn: boolean) {
  const accountId = (await accounts.create(db, { name: 'Forms' }, 1000)).id;
  const groupId = await createGroup(db, accountId, 'Readers');
  const form = await forms.create(db, accountId, {
    name: 'Newsletter',
    group_ids: [groupId],
    double_opt_in: doubleOptIn,
    fields: [{ key: 'first_name' }],
  });
  return { accountId, groupId, form };
}

const SIGNED_UP = ['subscriber.created', 'subscriber.added_to_group', 'form.submitted'];
const n = (row: { n: number | string | bigint }) => Number(row.n);

/** What a sign-up has left behind: subscribers, memberships of the form's group, events, the form's counters. */
async function written({ accountId, groupId, form }: Awaited<ReturnType<typeof setup>>) {
  return {
    subscribers: n(
      await db
        .selectFrom('subscribers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ),
    memberships: n(
      await db
        .selectFrom('subscriber_groups')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('group_id', '=', groupId)
        .executeTakeFirstOrThrow(),
    ),
    events: await eventTypes(db, accountId),
    stats: await db
      .selectFrom('forms')
      .select(['submissions', 'confirmations'])
      .where('id', '=', form.id)
      .executeTakeFirstOrThrow(),
  };
}

const linkToken = (msg: OutgoingMessage) => /\/f\/confirm\/([A-Za-z0-9_\-.]+)/.exec(String(msg.text))![1]!;

describe('form sign-up', () => {
  test('writes the subscriber, its groups and form.submitted together', async () => {
    const f = await setup(false);
    assert.equal(
      (await signups.submit(db, mail, f.form.id, { email: 'ada@example.com', first_name: 'Ada' })).status,
      'subscribed',
    );
    assert.deepEqual(await written(f), {
      subscribers: 1,
      memberships: 1,
      events: SIGNED_UP,
      stats: { submissions: 1, confirmations: 0 },
    });
  });

  test('a failure writing form.submitted rolls the whole sign-up back: no subscriber, no membership, no count', async () => {
    const f = await setup(false);
    await refuseFormSubmitted(f.accountId);
    await assert.rejects(
      signups.submit(db, mail, f.form.id, { email: 'ada@example.com', first_name: 'Ada' }),
      /form\.submitted refused/,
    );
    assert.deepEqual(await written(f), {
      subscribers: 0,
      memberships: 0,
      events: [],
      stats: { submissions: 0, confirmations: 0 },
    });
  });
});

describe('double opt-in confirmation', () => {
  test('writes the subscriber, its groups and form.submitted together, once', async () => {
    const f = await setup(true);
    assert.equal((await signups.submit(db, mail, f.form.id, { email: 'bob@example.com' })).status, 'pending');
    assert.deepEqual(await written(f), {
      subscribers: 0,
      memberships: 0,
      events: [],
      stats: { submissions: 1, confirmations: 0 },
    });
    const token = linkToken(sent.at(-1)!);
    assert.equal((await signups.confirm(db, mail.config, token)).status, 'confirmed');
    assert.equal((await signups.confirm(db, mail.config, token)).status, 'already_confirmed');
    assert.deepEqual(await written(f), {
      subscribers: 1,
      memberships: 1,
      events: SIGNED_UP,
      stats: { submissions: 1, confirmations: 1 },
    });
  });

  test('a failure writing form.submitted rolls the confirmation back, and the link still works afterwards', async () => {
    const f = await setup(true);
    await signups.submit(db, mail, f.form.id, { email: 'bob@example.com' });
    const token = linkToken(sent.at(-1)!);
    const allow = await refuseFormSubmitted(f.accountId);
    await assert.rejects(signups.confirm(db, mail.config, token), /form\.submitted refused/);
    assert.deepEqual(await written(f), {
      subscribers: 0,
      memberships: 0,
      events: [],
      stats: { submissions: 1, confirmations: 0 },
    });

    await allow();
    assert.equal((await signups.confirm(db, mail.config, token)).status, 'confirmed');
    assert.deepEqual(await written(f), {
      subscribers: 1,
      memberships: 1,
      events: SIGNED_UP,
      stats: { submissions: 1, confirmations: 1 },
    });
  });
});
