// The ledger steps the send workers run, without HTTP or SMTP: a claim holds rows for one worker, a write
// marks them 'sending' and records outcomes with their email.sent events, a campaign finishes once, and the
// rows of a worker that stopped heartbeating are interrupted or given back.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import * as ledger from '../../../src/domain/delivery/ledger.ts';
import * as ledgerQueries from '../../../src/domain/delivery/ledgerQueries.ts';
import { migratedDb } from '../../support/db.ts';
import { groupOf, newAccount } from '../../support/domain.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'domain-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'domain-secret',
};
const { db } = await migratedDb();

const account = () => newAccount(db, 'Campaigns');
const withAudience = (acc: string, emails: string[]) => groupOf(db, acc, emails);

describe('Ledger steps', () => {
  const mark = async (worker: string, ids: number[]) =>
    (
      await ledger.write(db, worker, {
        outcomes: [],
        marks: ids.map((id) => ({ id, message_id: `<m${id}-${worker}@x>` })),
        done: [],
      })
    ).marked;

  test('a claim holds rows for one worker, a write marks them sending and writes outcomes and email.sent; finish happens once, with campaign.sent', async () => {
    const acc = await account();
    const g = await withAudience(acc, ['l1@x.test', 'l2@x.test', 'l3@x.test']);
    const c = await campaigns.create(db, acc, {
      name: 'Ledger',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [g],
    });
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const w1 = randomUUID();
    const { rows: batch, id: claim1 } = await ledgerQueries.claim(db, c.id, w1, 2);
    assert.equal(batch.length, 2);
    assert.ok(batch.every((r) => r.attempts === 1));
    const w2 = randomUUID();
    const { rows: rest } = await ledgerQueries.claim(db, c.id, w2, 10);
    assert.equal(rest.length, 1, 'a second worker gets only what is left');
    // a claim is not an attempt: the rows stay queued until their messages go out
    const claimed = await db
      .selectFrom('campaign_recipients')
      .select(['state', 'attempts'])
      .where('campaign_id', '=', c.id)
      .execute();
    assert.deepEqual(
      claimed.map((r) => `${r.state}:${r.attempts}`),
      ['queued:0', 'queued:0', 'queued:0'],
    );
    assert.deepEqual(
      [
        ...(
          await mark(
            w1,
            batch.map((r) => r.id),
          )
        ).keys(),
      ].sort(),
      batch.map((r) => r.id).sort(),
    );
    const planned = await db
      .selectFrom('campaign_recipients')
      .select(['id', 'message_id'])
      .where(
        'id',
        'in',
        batch.map((r) => r.id),
      )
      .execute();
    assert.ok(
      planned.every((r) => r.message_id === `<m${r.id}-${w1}@x>`),
      'the mark records the Message-ID before the message goes',
    );
    assert.equal((await mark(w2, [batch[0]!.id])).size, 0, 'a row marked by one worker is not another’s to send');
    assert.equal((await mark(w2, [rest[0]!.id])).size, 1);
    assert.equal(await ledger.finishIfDone(db, c.id), false, 'not while rows are in flight');
    const { written } = await ledger.write(db, w1, {
      outcomes: [
        { id: batch[0]!.id, state: 'sent', message_id: 'm1@x' },
        { id: batch[1]!.id, state: 'failed', error: '550 no' },
      ],
      marks: [],
      done: [claim1!],
    });
    assert.equal(written, 2);
    assert.equal(
      (
        await ledger.write(db, randomUUID(), {
          outcomes: [{ id: batch[0]!.id, state: 'sent', message_id: 'dup@x' }],
          marks: [],
          done: [],
        })
      ).written,
      0,
      'another worker cannot overwrite',
    );
    assert.equal(
      (await db.selectFrom('send_claims').select('id').where('campaign_id', '=', c.id).execute()).length,
      1,
      'the finished claim is gone, the other worker’s stays',
    );
    // the third row's worker "died": its row is interrupted, not re-sent
    assert.deepEqual(await ledgerQueries.interruptOrphans(db, { leaseMs: 60_000, me: w1, allButMe: true }), {
      interrupted: 1,
      released: 0,
    });
    assert.equal(await ledger.finishIfDone(db, c.id), true);
    assert.equal(await ledger.finishIfDone(db, c.id), false, 'finishes once');
    const done = await campaigns.get(db, acc, c.id);
    assert.equal(done.status, 'sent');
    assert.deepEqual([done.stats.recipients, done.stats.sent, done.stats.failed, done.stats.interrupted], [3, 1, 1, 1]);
    const events = await db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', acc)
      .where('type', 'in', ['email.sent', 'campaign.sent'])
      .execute();
    assert.deepEqual(events.map((e) => e.type).sort(), ['campaign.sent', 'email.sent']);
    const sentEvent = events.find((e) => e.type === 'email.sent')!.data as any;
    assert.deepEqual(
      [sentEvent.campaign_id, sentEvent.message_id, sentEvent.subscriber.email],
      [c.id, 'm1@x', batch[0]!.email],
    );
    assert.equal((events.find((e) => e.type === 'campaign.sent')!.data as any).stats.sent, 1);
  });

  test('interruptOrphans leaves rows of a live worker alone, interrupts what a silent one was sending and requeues what it only claimed', async () => {
    const acc = await account();
    const g = await withAudience(acc, ['o1@x.test', 'o2@x.test', 'o3@x.test', 'o4@x.test']);
    const c = await campaigns.create(db, acc, {
      name: 'Orphans',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [g],
    });
    await campaigns.schedule(db, config, acc, c.id, { delivery: 'instant' });
    const [live, dead] = [randomUUID(), randomUUID()];
    await ledgerQueries.heartbeat(db, live);
    const [l1] = (await ledgerQueries.claim(db, c.id, live, 1)).rows;
    await ledgerQueries.claim(db, c.id, live, 1);
    const [d1] = (await ledgerQueries.claim(db, c.id, dead, 1)).rows;
    await ledgerQueries.claim(db, c.id, dead, 1);
    await mark(live, [l1!.id]);
    await mark(dead, [d1!.id]);
    assert.deepEqual(await ledgerQueries.interruptOrphans(db, { leaseMs: 60_000, me: randomUUID() }), {
      interrupted: 1,
      released: 1,
    });
    const states = await db
      .selectFrom('campaign_recipients')
      .select(['state', 'worker_id', 'attempts'])
      .where('campaign_id', '=', c.id)
      .execute();
    assert.deepEqual(states.map((s) => `${s.state}:${s.worker_id === live}:${s.attempts}`).sort(), [
      'interrupted:false:1',
      'queued:false:0',
      'queued:false:0',
      'sending:true:1',
    ]);
    const { rows: back } = await ledgerQueries.claim(db, c.id, randomUUID(), 10);
    assert.equal(back.length, 1, 'the dead worker’s claim can be claimed again');
  });
});
