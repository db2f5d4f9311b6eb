// Pause and resume on the real server, mail to the outbox: a campaign to 20,000 paused at about 30 %
// sends nothing more a second after the pause, and after resume reaches every recipient exactly once with
// nothing interrupted. Batches of 400 keep what is in flight at the pause small (two lanes: 800 at most)
// and the send quick.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { ledgerCounts, seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { startServer } from '../../support/server.ts';
import { mcpClient } from '../mcp/client.ts';

const s = await startServer({ after }, { WORKER_POLL_MS: 50, SEND_BATCH_SIZE: 400 });
const N = 20_000;

async function outboxCounts(accountId: string): Promise<{ n: number; distinct: number }> {
  const r = await sql<{ n: number; distinct: number }>`
    select count(*)::int as n, count(distinct to_addr)::int as distinct from outbox where account_id = ${accountId}::uuid`.execute(
    s.db,
  );
  return r.rows[0]!;
}

test('Pause › a send of 20,000 paused at about 30 % stops within a second; resume reaches all exactly once, none interrupted', async () => {
  const { api, accountId } = await s.restAccount();
  const { groupId } = await seedAudience(s.db, accountId, N, { domain: 'pause.test' });
  const created = await api.post('/campaigns', {
    name: 'Big',
    subject: 'Hello',
    content_html: '<p>Hi {{ subscriber.first_name }}</p>',
    group_ids: [groupId],
  });
  const id = created.body.data.id;
  assert.equal((await api.post(`/campaigns/${id}/pause`)).status, 409, 'a draft cannot be paused');
  assert.equal((await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
  for (;;) {
    const { n } = await outboxCounts(accountId);
    if (n >= N * 0.3) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const paused = await api.post(`/campaigns/${id}/pause`);
  assert.equal(paused.status, 200, JSON.stringify(paused.body));
  assert.equal(paused.body.data.status, 'paused');
  assert.ok(paused.body.data.paused_at);
  await new Promise((r) => setTimeout(r, 1000));
  const atOneSecond = await outboxCounts(accountId);
  await new Promise((r) => setTimeout(r, 1500));
  const later = await outboxCounts(accountId);
  assert.equal(later.n, atOneSecond.n, 'nothing more is sent from a second after the pause');
  assert.ok(later.n < N * 0.6, `paused partway (${later.n} sent)`);
  const whilePaused = await ledgerCounts(s.db, id);
  assert.equal(whilePaused.sending ?? 0, 0, 'nothing is left mid-send');
  assert.equal(whilePaused.interrupted ?? 0, 0);
  assert.equal((await api.get(`/campaigns/${id}`)).body.data.status, 'paused', 'a paused campaign does not finish');
  assert.equal((await api.post(`/campaigns/${id}/pause`)).status, 409, 'pausing twice is a conflict');

  // resumed through MCP's cancel_campaign action
  const { key } = await s.newKey(accountId);
  const resumed = await mcpClient(s.url, key).call('cancel_campaign', { campaign_id: id, action: 'resume' });
  assert.equal(resumed.isError, false, JSON.stringify(resumed.body));
  assert.equal(resumed.body.data.status, 'sending');
  const done = await waitForCampaign(api, id, (c) => c.status === 'sent', 120_000);
  assert.equal(done.stats.sent, N);
  assert.equal(done.stats.interrupted, 0);
  assert.deepEqual(await outboxCounts(accountId), { n: N, distinct: N }, 'each recipient exactly once');
  assert.equal((await api.post(`/campaigns/${id}/resume`)).status, 409, 'a sent campaign cannot be resumed');
});
