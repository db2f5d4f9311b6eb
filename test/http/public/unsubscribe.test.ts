// GET/POST /u/{token}: a confirmation page with a button, and the POST that
// unsubscribes (the button or a mail client's one-click) with subscriber.unsubscribed; forged tokens and
// deleted subscribers get a plain 404 page.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { unsubscribeToken } from '../../../src/mail/unsubscribe.ts';
import { eventsOfType } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope);

async function subscriber(email = `u-${randomUUID()}@unsub.test`) {
  const { accountId, key } = await s.newAccount();
  const sub = (await restClient(s.url, key).post('/subscribers', { email })).body.data;
  return { accountId, key, sub };
}

const form = (body = 'List-Unsubscribe=One-Click') => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body,
});

describe('Unsubscribe page', () => {
  test('GET shows who is unsubscribed from which account, with a POST button; nothing changes yet', async () => {
    const { accountId, sub } = await subscriber("o'hara@unsub.test");
    const res = await fetch(`${s.url}/u/${unsubscribeToken(s.config.secret, accountId, sub.id)}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html/);
    const html = await res.text();
    assert.match(html, /o&#39;hara@unsub\.test/);
    assert.match(html, /<form method="post">/);
    const row = await s.db
      .selectFrom('subscribers')
      .select('status')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'active');
  });

  test('POST (the button) unsubscribes: status, unsubscribed_at, subscriber.updated + subscriber.unsubscribed with the source; repeat is a no-op', async () => {
    const { accountId, sub } = await subscriber();
    const automationId = randomUUID();
    const url = `${s.url}/u/${unsubscribeToken(s.config.secret, accountId, sub.id, { automation_id: automationId })}`;
    const res = await fetch(url, form('List-Unsubscribe=One-Click'));
    assert.equal(res.status, 200);
    assert.match(await res.text(), /will not receive these emails/);
    const row = await s.db
      .selectFrom('subscribers')
      .select(['status', 'unsubscribed_at'])
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'unsubscribed');
    assert.ok(row.unsubscribed_at);
    const ev = await eventsOfType(s.db, accountId, 'subscriber.unsubscribed');
    assert.equal(ev.length, 1);
    assert.deepEqual(
      [ev[0]!.data.source, ev[0]!.data.automation_id, ev[0]!.subscriber_id],
      ['unsubscribe_link', automationId, sub.id],
    );
    assert.equal((await eventsOfType(s.db, accountId, 'subscriber.updated')).length, 1);
    assert.equal((await fetch(url, form())).status, 200);
    assert.equal((await eventsOfType(s.db, accountId, 'subscriber.unsubscribed')).length, 1);
    assert.match(await (await fetch(url)).text(), /is unsubscribed/);
  });

  test('a complained subscriber stays complained', async () => {
    const { accountId, sub } = await subscriber();
    await s.db.updateTable('subscribers').set({ status: 'complained' }).where('id', '=', sub.id).execute();
    assert.equal(
      (await fetch(`${s.url}/u/${unsubscribeToken(s.config.secret, accountId, sub.id)}`, form())).status,
      200,
    );
    assert.equal(
      (await s.db.selectFrom('subscribers').select('status').where('id', '=', sub.id).executeTakeFirstOrThrow()).status,
      'complained',
    );
  });

  test('forged, truncated or foreign-secret tokens and deleted subscribers → 404; nothing changes', async () => {
    const { accountId, key, sub } = await subscriber();
    const token = unsubscribeToken(s.config.secret, accountId, sub.id);
    const forged = unsubscribeToken('another-secret', accountId, sub.id);
    for (const t of [
      forged,
      token.slice(0, -2),
      'x',
      token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21),
    ]) {
      assert.equal((await fetch(`${s.url}/u/${t}`)).status, 404);
      assert.equal((await fetch(`${s.url}/u/${t}`, form())).status, 404);
    }
    assert.equal(
      (await s.db.selectFrom('subscribers').select('status').where('id', '=', sub.id).executeTakeFirstOrThrow()).status,
      'active',
    );
    // a token naming the subscriber under another account resolves to nothing
    const other = await s.newAccount();
    assert.equal(
      (await fetch(`${s.url}/u/${unsubscribeToken(s.config.secret, other.accountId, sub.id)}`, form())).status,
      404,
    );
    await restClient(s.url, key).delete(`/subscribers/${sub.id}`);
    assert.equal((await fetch(`${s.url}/u/${token}`, form())).status, 404);
  });
});
