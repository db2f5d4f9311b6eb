// Looking at a captured message in the dashboard's outbox is not the recipient reading it: the preview
// carries no open pixel, no tracked click, no unsubscribe and no double opt-in confirmation link, so
// following everything it shows counts nothing and confirms no one.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sendCampaignTo } from '../../../support/campaigns.ts';
import { startServer } from '../../../support/server.ts';
import { signedIn } from '../session.ts';

const s = await startServer({ after }, { WORKER_POLL_MS: 100 });
s.config.publicUrl = s.url; // PORT 0: the real port is known only now, and the links must point at this server

/** Every address the preview would fetch or follow: src and href values. */
const addressesIn = (html: string) => [...html.matchAll(/\b(?:src|href)\s*=\s*(["'])(.*?)\1/gis)].map((m) => m[2]!);

async function preview(client: Awaited<ReturnType<typeof signedIn>>['client'], to: string) {
  const list = (await client.get('/outbox?per_page=100')).body.data.messages as { id: string; to_addr: string }[];
  const message = list.find((m) => m.to_addr.includes(to));
  assert.ok(message, `a captured message to ${to}`);
  const res = await client.raw('GET', `/app/api/outbox/${message.id}/html`);
  assert.equal(res.status, 200);
  return res.body as string;
}

/** Follows every address of the preview that points at this server, as a curious click would. */
async function followAll(html: string) {
  for (const url of addressesIn(html))
    if (url.startsWith(s.url)) await fetch(url.replace(/&amp;/g, '&'), { redirect: 'manual' });
}

test('Outbox preview › a campaign: no pixel, no tracked link, no unsubscribe link; following it counts nothing', async () => {
  const { api, accountId } = await s.restAccount();
  const sent = await sendCampaignTo(s.db, api, accountId, ['reader@preview.test'], {
    content_html:
      '<p>Hi</p><p><a href="https://example.org/page">Read</a></p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
  });
  const captured = await s.db
    .selectFrom('outbox')
    .select('html')
    .where('to_addr', 'like', '%reader@preview.test%')
    .executeTakeFirstOrThrow();
  assert.match(captured.html!, /\/t\/o\//, 'the message itself is tracked');
  assert.match(captured.html!, /\/t\/c\//);
  assert.match(captured.html!, /\/u\//);

  const { client } = await signedIn(s, 'viewer', accountId);
  const html = await preview(client, 'reader@preview.test');
  assert.doesNotMatch(html, /\/t\/o\/|\/t\/c\/|\/u\//, html);
  assert.match(html, />Read</, 'the text of the message stays');
  await followAll(html);

  const stats = (await api.get(`/campaigns/${sent.campaignId}`)).body.data.stats;
  assert.deepEqual([stats.opens, stats.unique_opens, stats.clicks, stats.unsubscribes], [0, 0, 0, 0]);
  const sub = (await api.get(`/subscribers/${sent.subscriberIds.get('reader@preview.test')}`)).body.data;
  assert.equal(sub.status, 'active');
});

test('Outbox preview › a double opt-in confirmation: the link is not in the preview and the person stays unconfirmed', async () => {
  const { api, accountId } = await s.restAccount();
  const form = (await api.post('/forms', { name: 'News', double_opt_in: true })).body.data;
  const res = await fetch(`${s.url}/f/${form.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email: 'dora@preview.test' }),
  });
  assert.equal(res.status, 200);
  const captured = await s.db
    .selectFrom('outbox')
    .select('html')
    .where('to_addr', 'like', '%dora@preview.test%')
    .executeTakeFirstOrThrow();
  assert.match(captured.html!, /\/f\/confirm\//, 'the message itself carries the link');

  const { client } = await signedIn(s, 'viewer', accountId);
  const html = await preview(client, 'dora@preview.test');
  assert.doesNotMatch(html, /\/f\/confirm\//, html);
  const list = (await client.get('/outbox?per_page=100')).body.data.messages as { id: string; to_addr: string }[];
  const id = list.find((m) => m.to_addr.includes('dora@preview.test'))!.id;
  const message = (await client.get(`/outbox/${id}`)).body.data as { text: string };
  assert.match(message.text, /link hidden in the preview/, 'the plain-text part shows where the link was');
  assert.doesNotMatch(message.text, /\/f\/confirm\//, message.text);
  await followAll(html);
  const found = await api.get('/subscribers?search=dora');
  assert.equal(found.body.data.pagination.total_count, 0, 'not a subscriber: the preview confirmed no one');
});
