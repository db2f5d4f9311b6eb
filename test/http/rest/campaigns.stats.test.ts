// A click implies an open: a recipient who clicked with images off (no pixel) counts as opened once, so
// campaign stats never say opens 0, unique_opens 1 — on REST, MCP and the dashboard, which read one query.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { recordClick } from '../../../src/domain/feedback/engagement.ts';
import { sendCampaignTo } from '../../support/campaigns.ts';
import { startServer } from '../../support/server.ts';
import { mcpClient } from '../mcp/client.ts';
import { signedIn } from '../dashboard/session.ts';

const s = await startServer({ after }, { WORKER_POLL_MS: 100 });

test('Campaign stats › a click without an open: opens ≥ unique_opens and clicks ≥ unique_clicks everywhere', async () => {
  const { api, key, accountId } = await s.restAccount();
  const sent = await sendCampaignTo(s.db, api, accountId, ['clicker@stats.test', 'quiet@stats.test']);
  const clicker = sent.subscriberIds.get('clicker@stats.test')!;
  await recordClick(s.db, { campaign_id: sent.campaignId, subscriber_id: clicker }, 0);

  const pick = (st: any) => [st.opens, st.unique_opens, st.clicks, st.unique_clicks];
  const rest = (await api.get(`/campaigns/${sent.campaignId}`)).body.data.stats;
  assert.deepEqual(pick(rest), [1, 1, 1, 1], 'REST');

  const mcp = await mcpClient(s.url, key).call('get_campaign', { campaign_id: sent.campaignId });
  assert.equal(mcp.isError, false, JSON.stringify(mcp.body));
  assert.deepEqual(pick(mcp.body.data.stats), [1, 1, 1, 1], 'MCP');

  const recipients = (await api.get(`/campaigns/${sent.campaignId}/recipients?filter=clicked`)).body.data.recipients;
  assert.equal(recipients.length, 1);
  assert.equal(recipients[0].opens, 1, 'the recipient list counts the open the click implies');

  const { client } = await signedIn(s, 'viewer', accountId);
  const report = (await client.get(`/campaigns/${sent.campaignId}/report`)).body.data;
  assert.deepEqual(pick(report.stats), [1, 1, 1, 1], 'dashboard report');
});
