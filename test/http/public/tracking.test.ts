// GET /t/o/{token} and /t/c/{token}: the pixel always answers a GIF but counts only
// real tokens; the click redirect goes to the campaign's stored link or nowhere (404); opens and clicks land
// on the ledger row and as email.opened / email.clicked; an account with tracking off records nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clickUrl, openUrl } from '../../../src/mail/tracking.ts';
import { eventsOfType, sendCampaignTo } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { WORKER_POLL_MS: 100 });
s.config.publicUrl = s.url;

async function sent() {
  const { accountId, key } = await s.newAccount();
  const api = restClient(s.url, key);
  const r = await sendCampaignTo(s.db, api, accountId, ['t1@track.test', 't2@track.test']);
  return { accountId, api, ...r, sub: r.subscriberIds.get('t1@track.test')! };
}

describe('Open pixel', () => {
  test('a real token counts an open (ledger + email.opened with campaign_id and subscriber_id); a forged one still gets the GIF but counts nothing', async () => {
    const a = await sent();
    const res = await fetch(openUrl(s.config, a.campaignId, a.sub));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/gif');
    assert.match(res.headers.get('cache-control')!, /no-store/);
    const forged = await fetch(`${s.url}/t/o/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(forged.status, 200);
    const ev = await eventsOfType(s.db, a.accountId, 'email.opened');
    assert.equal(ev.length, 1);
    assert.deepEqual(
      [ev[0]!.data.campaign_id, ev[0]!.subscriber_id, ev[0]!.data.subscriber.email],
      [a.campaignId, a.sub, 't1@track.test'],
    );
    const row = await s.db
      .selectFrom('campaign_recipients')
      .select(['opens', 'opened_at'])
      .where('campaign_id', '=', a.campaignId)
      .where('subscriber_id', '=', a.sub)
      .executeTakeFirstOrThrow();
    assert.equal(row.opens, 1);
    assert.ok(row.opened_at);
  });
});

describe('Open before the ledger has the answer', () => {
  test('an open of a message still marked sending (or interrupted) counts; one never handed over (queued, failed) does not', async () => {
    const a = await sent();
    const t2 = a.subscriberIds.get('t2@track.test')!;
    const setState = (sub: string, state: 'sending' | 'interrupted' | 'queued' | 'failed') =>
      s.db
        .updateTable('campaign_recipients')
        .set({ state })
        .where('campaign_id', '=', a.campaignId)
        .where('subscriber_id', '=', sub)
        .execute();
    await setState(a.sub, 'sending'); // the send lanes record the server's answers a batch at a time
    await fetch(openUrl(s.config, a.campaignId, a.sub));
    await setState(t2, 'failed');
    await fetch(openUrl(s.config, a.campaignId, t2));
    assert.deepEqual(
      (await eventsOfType(s.db, a.accountId, 'email.opened')).map((e) => e.subscriber_id),
      [a.sub],
    );
    await setState(a.sub, 'interrupted');
    await setState(t2, 'queued');
    await fetch(openUrl(s.config, a.campaignId, a.sub));
    await fetch(openUrl(s.config, a.campaignId, t2));
    assert.deepEqual(
      (await eventsOfType(s.db, a.accountId, 'email.opened')).map((e) => e.subscriber_id),
      [a.sub, a.sub],
    );
  });
});

describe('Click redirect', () => {
  test('302 to the stored link with email.clicked {url}; an index that is not stored → 404 (no open redirect)', async () => {
    const a = await sent();
    const res = await fetch(clickUrl(s.config, a.campaignId, a.sub, 0), { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), 'https://example.org/page');
    const ev = await eventsOfType(s.db, a.accountId, 'email.clicked');
    assert.deepEqual(
      [ev.length, ev[0]!.data.url, ev[0]!.data.campaign_id],
      [1, 'https://example.org/page', a.campaignId],
    );
    assert.equal((await fetch(clickUrl(s.config, a.campaignId, a.sub, 7), { redirect: 'manual' })).status, 404);
    const stats = (await a.api.get(`/campaigns/${a.campaignId}`)).body.data.stats;
    assert.deepEqual(
      [stats.clicks, stats.unique_clicks, stats.unique_opens],
      [1, 1, 1],
      'a click also counts as an open',
    );
  });

  test('tracking off for the campaign: the redirect still works, nothing is recorded', async () => {
    const a = await sent();
    await s.db
      .updateTable('campaigns')
      .set({ track_opens: false, track_clicks: false })
      .where('id', '=', a.campaignId)
      .execute();
    assert.equal((await fetch(clickUrl(s.config, a.campaignId, a.sub, 0), { redirect: 'manual' })).status, 302);
    await fetch(openUrl(s.config, a.campaignId, a.sub));
    assert.equal((await eventsOfType(s.db, a.accountId, 'email.clicked')).length, 0);
    assert.equal((await eventsOfType(s.db, a.accountId, 'email.opened')).length, 0);
  });
});

describe('Email clients and devices', () => {
  const UA = {
    chrome:
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    iphoneMail:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
    outlook: 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)',
    proxy: 'Mozilla/5.0',
  };
  const as = (ua: string) => ({ headers: { 'user-agent': ua }, redirect: 'manual' as const });

  test('opens through the pixel count people by the client and device of their first open or click; proxy loads and the user agent itself are not kept', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const emails = ['c1@ua.test', 'c2@ua.test', 'c3@ua.test', 'c4@ua.test', 'c5@ua.test'];
    const r = await sendCampaignTo(s.db, api, accountId, emails);
    const [chrome, iphone, outlook, proxied, clicker] = emails.map((e) => r.subscriberIds.get(e)!);
    const open = (sub: string, ua: string) => fetch(openUrl(s.config, r.campaignId, sub), as(ua));
    await open(chrome!, UA.chrome);
    await open(iphone!, UA.iphoneMail);
    await open(iphone!, UA.chrome); // a later open from elsewhere keeps the first client
    await open(outlook!, UA.outlook);
    await open(proxied!, UA.proxy);
    await fetch(clickUrl(s.config, r.campaignId, iphone!, 0), as(UA.chrome));
    // images blocked: the click is the first a person was seen, from their browser
    await fetch(clickUrl(s.config, r.campaignId, clicker!, 0), as(UA.chrome));

    const res = await api.get(`/campaigns/${r.campaignId}/clients`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, {
      clients: [
        { name: 'Web browser: Chrome', opens: 2, clicks: 1 },
        { name: 'Apple Mail', opens: 1, clicks: 1 },
        { name: 'Outlook', opens: 1, clicks: 0 },
      ],
      devices: [
        { type: 'desktop', opens: 3, clicks: 1 },
        { type: 'mobile', opens: 1, clicks: 1 },
      ],
    });
    const stats = (await api.get(`/campaigns/${r.campaignId}`)).body.data.stats;
    assert.equal(stats.unique_human_opens, 4, 'the breakdown adds up to the human opens');
    const stored = await s.db
      .selectFrom('campaign_recipients')
      .select(['subscriber_id', 'client', 'device'])
      .where('campaign_id', '=', r.campaignId)
      .where('subscriber_id', '=', proxied!)
      .executeTakeFirstOrThrow();
    assert.deepEqual([stored.client, stored.device], [null, null], 'a proxy load names no client');
    const other = await restClient(s.url, (await s.newAccount()).key).get(`/campaigns/${r.campaignId}/clients`);
    assert.equal(other.status, 404, "another account's campaign is not found");
  });
});
