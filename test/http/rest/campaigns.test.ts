// /api/v1/external/campaigns and /outbox (our addition to the REST surface): the envelope, status codes,
// scopes campaigns:read / campaigns:write, preview, the recipients list and the captured outbox.
// Mail goes to the outbox (no SMTP_URL): a fresh `npm start` sends end to end.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { WORKER_POLL_MS: 100 });
const MISSING = '00000000-0000-4000-8000-000000000000';

const account = (scopes = ['*']) => s.restAccount({ scopes });

describe('REST campaigns', () => {
  test('POST 201 → GET 200 → PUT 200 → DELETE 200; unknown and foreign ids 404 "Campaign not found"', async () => {
    const { api } = await account();
    const created = await api.post('/campaigns', { name: 'Launch', subject: 'Hi' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.success, true);
    const id = created.body.data.id;
    assert.equal((await api.get(`/campaigns/${id}`)).body.data.subject, 'Hi');
    const put = await api.put(`/campaigns/${id}`, { subject: 'Hello' });
    assert.equal(put.status, 200);
    assert.equal(put.body.data.subject, 'Hello');
    const other = await account();
    for (const res of [
      await other.api.get(`/campaigns/${id}`),
      await api.get(`/campaigns/${MISSING}`),
      await api.get('/campaigns/not-a-uuid'),
    ]) {
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { success: false, error: 'Campaign not found' });
    }
    const del = await api.delete(`/campaigns/${id}`);
    assert.deepEqual(del.body, { success: true, message: 'Campaign deleted', data: { id, deleted: true } });
    assert.equal((await api.get(`/campaigns/${id}`)).status, 404);
  });

  test('400 with the field map for bad input; 409 "Only draft campaigns can be updated" / "Campaign is already scheduled"', async () => {
    const { api, accountId } = await account();
    const bad = await api.post('/campaigns', { name: '', from_email: 'nope' });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.data.name && bad.body.data.from_email, JSON.stringify(bad.body));
    const { groupId } = await seedAudience(s.db, accountId, 1, { domain: 'rest409.test' });
    const id = (
      await api.post('/campaigns', { name: 'S', subject: 'S', content_html: '<p>x</p>', group_ids: [groupId] })
    ).body.data.id;
    const at = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal(
      (await api.post(`/campaigns/${id}/schedule`, { delivery: 'scheduled', scheduled_at: at })).status,
      200,
    );
    const again = await api.post(`/campaigns/${id}/schedule`, { delivery: 'scheduled', scheduled_at: at });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { success: false, error: 'Campaign is already scheduled' });
    const put = await api.put(`/campaigns/${id}`, { name: 'x' });
    assert.equal(put.status, 409);
    assert.deepEqual(put.body, { success: false, error: 'Only draft campaigns can be updated' });
    const badSchedule = await api.post(`/campaigns/${MISSING}/schedule`, { delivery: 'instant' });
    assert.equal(badSchedule.status, 404);
  });

  test('scopes: campaigns:read may GET but not POST (403 Forbidden naming campaigns:write)', async () => {
    const { api } = await account(['campaigns:read']);
    assert.equal((await api.get('/campaigns')).status, 200);
    const res = await api.post('/campaigns', { name: 'x' });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body, {
      success: false,
      error: 'Forbidden',
      message: 'API key lacks the required permission: campaigns:write',
    });
    const none = await account(['subscribers:read']);
    assert.equal((await none.api.get('/campaigns')).status, 403);
    assert.equal((await none.api.get('/outbox')).status, 403);
  });

  test('GET /campaigns: list with pagination, status filter, per_page clamped; 400 for a bad page', async () => {
    const { api } = await account();
    for (const name of ['A', 'B', 'C']) await api.post('/campaigns', { name });
    const list = await api.get('/campaigns?per_page=2');
    assert.deepEqual(
      list.body.data.campaigns.map((c: any) => c.name),
      ['C', 'B'],
    );
    assert.deepEqual(list.body.data.pagination, { current_page: 1, total_pages: 2, total_count: 3, per_page: 2 });
    assert.equal((await api.get('/campaigns?per_page=1000')).body.data.pagination.per_page, 100);
    assert.equal((await api.get('/campaigns?status=draft')).body.data.pagination.total_count, 3);
    assert.equal((await api.get('/campaigns?page=0')).status, 400);
  });

  test('POST /campaigns/{id}/preview renders for a subscriber by id or email, escaping subscriber data; 404 for an unknown subscriber', async () => {
    const { api } = await account();
    const sub = (await api.post('/subscribers', { email: 'ada@preview.test', first_name: '<Ada>' })).body.data;
    const id = (
      await api.post('/campaigns', {
        name: 'P',
        subject: 'Hi {{ subscriber.first_name }}',
        from_name: 'Acme',
        from_email: 'news@acme.test',
        content_html: '<p>Hello {{ subscriber.first_name }}</p>',
      })
    ).body.data.id;
    const byId = await api.post(`/campaigns/${id}/preview`, { subscriber_id: sub.id });
    assert.equal(byId.status, 200, JSON.stringify(byId.body));
    assert.equal(byId.body.data.subject, 'Hi <Ada>');
    assert.match(byId.body.data.html, /Hello &lt;Ada&gt;/);
    assert.match(byId.body.data.html, /href="#">Unsubscribe/, 'the unsubscribe footer is appended, pointing nowhere');
    assert.match(byId.body.data.text, /Hello <Ada>/);
    assert.equal(byId.body.data.from, 'Acme <news@acme.test>');
    assert.equal(byId.body.data.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    const byEmail = await api.post(`/campaigns/${id}/preview`, { email: 'ADA@preview.test' });
    assert.equal(byEmail.body.data.to, 'ada@preview.test');
    const missing = await api.post(`/campaigns/${id}/preview`, { email: 'nobody@preview.test' });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, 'Subscriber not found');
  });

  test('schedule instant → the outbox gets one message per recipient (GET /outbox, newest first, paginated); recipients list', async () => {
    const { api, accountId } = await account();
    const { groupId } = await seedAudience(s.db, accountId, 3, { domain: 'outbox.test' });
    const id = (
      await api.post('/campaigns', {
        name: 'O',
        subject: 'Hello {{ subscriber.first_name }}',
        content_html: '<p>x</p>',
        group_ids: [groupId],
      })
    ).body.data.id;
    const res = await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
    assert.equal(res.body.data.status, 'sending');
    await waitForCampaign(api, id, (c) => c.status === 'sent');
    const outbox = await api.get('/outbox?per_page=2');
    assert.equal(outbox.status, 200);
    assert.deepEqual(outbox.body.data.pagination, { current_page: 1, total_pages: 2, total_count: 3, per_page: 2 });
    const msg = outbox.body.data.messages[0];
    assert.match(msg.subject, /^Hello Name\d$/);
    const full = await api.get(`/outbox/${msg.id}`);
    assert.match(full.body.data.html, /<p>x<\/p>/);
    assert.equal(full.body.data.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    const other = await account();
    assert.equal((await other.api.get('/outbox')).body.data.pagination.total_count, 0);
    assert.equal((await other.api.get(`/outbox/${msg.id}`)).status, 404);
    const recipients = await api.get(`/campaigns/${id}/recipients?filter=sent`);
    assert.equal(recipients.body.data.pagination.total_count, 3);
    assert.equal((await api.get(`/campaigns/${id}/recipients?filter=nope`)).status, 400);
  });

  test('POST /campaigns/{id}/cancel on a draft → 409; DELETE while sending → 409', async () => {
    const { api, accountId } = await account();
    const d = (await api.post('/campaigns', { name: 'D' })).body.data.id;
    const c = await api.post(`/campaigns/${d}/cancel`);
    assert.equal(c.status, 409);
    assert.equal(c.body.error, 'Only scheduled or sending campaigns can be cancelled');
    // a campaign held in 'sending': its one recipient waits for a retry an hour away (as after a 4xx reply)
    const sub = (await api.post('/subscribers', { email: 'held@del.test' })).body.data;
    // in one transaction: a 'sending' campaign seen without recipients is finished as sent by the worker
    const id = await s.db.transaction().execute(async (trx) => {
      const c = await trx
        .insertInto('campaigns')
        .values({ account_id: accountId, name: 'Held', status: 'sending', delivery: 'instant', started_at: new Date() })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('campaign_recipients')
        .values({
          campaign_id: c.id,
          account_id: accountId,
          subscriber_id: sub.id,
          email: sub.email,
          next_attempt_at: new Date(Date.now() + 3_600_000),
        })
        .execute();
      return c.id;
    });
    const del = await api.delete(`/campaigns/${id}`);
    assert.equal(del.status, 409);
    assert.match(del.body.error, /cannot be deleted/);
  });
});

describe('REST campaigns: hostile templates', () => {
  const HOSTILE = [
    ["{% include '/etc/passwd' %}", /cannot include other files/],
    ["{% render 'x' %}", /cannot include other files/],
    ['{% shout %}', /tag "shout" not found/],
    ['{{ subscriber.email | shout }}', /undefined filter: shout/],
    ['{% for i in (1..100000000) %}x{% endfor %}', /Template too large/],
    [
      '{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}',
      /Template too slow/,
    ],
  ] as const;

  const refused = (res: { status: number; body: any }, ms: number, field: string, message: RegExp) => {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.error, new RegExp(`^${field}: Template error: `));
    assert.match(res.body.error, message);
    assert.ok(res.body.data[field], JSON.stringify(res.body));
    // the render gives up within its own budget; the bound leaves room for a busy machine, not for a hang
    assert.ok(ms < 3000, `answered in ${ms} ms`);
  };
  const timed = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const started = performance.now();
    const r = await fn();
    return [r, performance.now() - started];
  };

  test("refused with 400 and Liquid's message at create, update, preview and schedule, in under a second", async () => {
    const { api, accountId } = await account();
    const { groupId } = await seedAudience(s.db, accountId, 1, { domain: 'hostile.test' });
    const ok = {
      name: 'H',
      subject: 'Hi',
      content_html: '<p>Hello {{ subscriber.first_name }}</p>',
      group_ids: [groupId],
    };
    // the render pool starts its first thread on a process's first save (~0.6 s of CPU): not what is timed here
    assert.equal((await api.post('/campaigns', ok)).status, 201);
    for (const [source, message] of HOSTILE) {
      refused(...(await timed(() => api.post('/campaigns', { ...ok, content_html: source }))), 'content_html', message);
      refused(...(await timed(() => api.post('/campaigns', { ...ok, subject: source }))), 'subject', message);
      const id = (await api.post('/campaigns', ok)).body.data.id;
      refused(...(await timed(() => api.put(`/campaigns/${id}`, { content_text: source }))), 'content_text', message);
      // a campaign saved before these rules existed: preview and schedule check it again
      await s.db.updateTable('campaigns').set({ content_html: source }).where('id', '=', id).execute();
      refused(...(await timed(() => api.post(`/campaigns/${id}/preview`, {}))), 'content_html', message);
      const scheduled = await timed(() => api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' }));
      refused(...scheduled, 'content_html', message);
      assert.equal((await api.get(`/campaigns/${id}`)).body.data.status, 'draft');
    }
    const good = (await api.post('/campaigns', ok)).body.data.id;
    const preview = await api.post(`/campaigns/${good}/preview`, {});
    assert.equal(preview.status, 200);
    assert.match(preview.body.data.html, /Hello Preview/);
  });
});
