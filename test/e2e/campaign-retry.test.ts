// Retrying a campaign's failures end to end: recipients refused with 4xx until their attempts ran out end
// 'failed' (expired); once the server accepts again, a retry delivers each of them exactly once, rows
// already sent are never sent again, and an interrupted row is sent again only when the retry names it.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { ledgerCounts, seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';

let refuse = true;
const sink: Sink = await startSink({
  reply: (rcpt) => (refuse && rcpt.endsWith('@flaky.test') ? [451, '4.3.0 Mailbox busy, try again later'] : undefined),
});
after(() => sink.close());
const s = await startServer(fileScope, {
  SMTP_URL: sink.url,
  WORKER_POLL_MS: 100,
  SEND_RETRY_BASE_MS: 50,
  SEND_MAX_ATTEMPTS: 2,
});

describe('Retrying failures', () => {
  test('temporary refusals until attempts ran out → retry delivers them once; sent never again; interrupted only when asked', async () => {
    const { accountId, api } = await s.restAccount();
    const { groupId } = await seedAudience(s.db, accountId, 4, { domain: 'ok.test' });
    const flaky = await seedAudience(s.db, accountId, 2, { domain: 'flaky.test' });
    const created = await api.post('/campaigns', {
      name: 'Retry me',
      subject: 'Hi',
      content_html: '<p>Hi</p>',
      from_email: 'news@example.com',
      group_ids: [groupId, flaky.groupId],
    });
    const id = created.body.data.id;
    assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
    await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.deepEqual(await ledgerCounts(s.db, id), { sent: 4, failed: 2 });
    const failed = await s.db
      .selectFrom('campaign_recipients')
      .select(['email', 'failure', 'attempts'])
      .where('campaign_id', '=', id)
      .where('state', '=', 'failed')
      .execute();
    assert.deepEqual(
      failed.map((f) => [f.failure, f.attempts]),
      [
        ['expired', 2],
        ['expired', 2],
      ],
    );
    assert.equal(sink.rcptAttempts.get('r1@flaky.test'), 2);

    // a row the crash rule marked: SMTP may have taken it, so only an explicit retry sends it again
    refuse = false;
    await s.db
      .updateTable('campaign_recipients')
      .set({ state: 'interrupted' })
      .where('campaign_id', '=', id)
      .where('email', '=', 'r4@ok.test')
      .execute();

    const retried = await api.post(`/campaigns/${id}/retry`);
    assert.deepEqual(retried.body, { success: true, data: { requeued: 2, status: 'sending' } });
    await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.deepEqual(await ledgerCounts(s.db, id), { sent: 5, interrupted: 1 });
    for (const to of ['r1@ok.test', 'r2@ok.test', 'r3@ok.test', 'r4@ok.test', 'r1@flaky.test', 'r2@flaky.test'])
      assert.equal(sink.counts.get(to), 1, to);
    assert.equal(sink.total(), 6);
    const history = await s.db
      .selectFrom('campaign_recipients')
      .select(['attempts', 'previous_errors'])
      .where('campaign_id', '=', id)
      .where('email', '=', 'r1@flaky.test')
      .executeTakeFirstOrThrow();
    assert.equal(history.attempts, 1);
    assert.equal(history.previous_errors.length, 1);
    assert.equal(history.previous_errors[0]!.failure, 'expired');
    assert.equal(history.previous_errors[0]!.attempts, 2);

    // nothing left to retry by default: the campaign stays sent
    assert.deepEqual((await api.post(`/campaigns/${id}/retry`)).body.data, { requeued: 0, status: 'sent' });

    const asked = await api.post(`/campaigns/${id}/retry`, { states: ['interrupted'] });
    assert.deepEqual(asked.body.data, { requeued: 1, status: 'sending' });
    await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.deepEqual(await ledgerCounts(s.db, id), { sent: 6 });
    assert.equal(sink.counts.get('r4@ok.test'), 2);
    assert.equal(sink.total(), 7);
  });
});
