// /api/v1/external/signups: the double opt-in sign-ups a form is waiting on, over REST: listed, mailed
// again, confirmed by hand with a reason; scopes and other accounts' ids hold.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope);
const { api } = await s.restAccount();
const group = await api.post('/groups', { name: 'Readers' });
const form = await api.post('/forms', { name: 'Newsletter', double_opt_in: true, group_ids: [group.body.data.id] });
assert.equal(form.status, 201, JSON.stringify(form.body));
for (const email of ['ana@example.com', 'bo@example.com']) {
  const res = await fetch(`${s.url}/f/${form.body.data.id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email }),
  });
  assert.equal(res.status, 200, await res.text());
}

test('GET /signups lists the pending sign-ups with their form; status filters; bad filters are 400', async () => {
  const res = await api.get('/signups');
  assert.equal(res.status, 200);
  assert.deepEqual(res.body.data.signups.map((x: any) => x.email).sort(), ['ana@example.com', 'bo@example.com']);
  assert.equal(res.body.data.signups[0].form_name, 'Newsletter');
  assert.equal(res.body.data.pagination.total_count, 2);
  assert.equal((await api.get('/signups?status=confirmed')).body.data.signups.length, 0);
  assert.equal((await api.get('/signups?status=sideways')).status, 400);
  assert.equal((await api.get('/signups?form_id=not-a-uuid')).status, 400);
});

test('resend is refused within a minute of the last mail; confirm needs a reason and records it', async () => {
  const list = (await api.get('/signups')).body.data.signups;
  const ana = list.find((x: any) => x.email === 'ana@example.com');
  const resent = await api.post(`/signups/${ana.id}/resend`);
  assert.equal(resent.status, 409, JSON.stringify(resent.body));
  assert.match(resent.body.error ?? resent.body.message, /less than a minute ago/);

  const noReason = await api.post(`/signups/${ana.id}/confirm`, {});
  assert.equal(noReason.status, 400);
  const confirmed = await api.post(`/signups/${ana.id}/confirm`, { reason: 'Signed up by phone' });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.data.status, 'confirmed');
  assert.equal(confirmed.body.data.confirm_reason, 'Signed up by phone');
  assert.match(confirmed.body.data.confirmed_by, /^API key “test key”$/);
  const subscriber = await api.get(`/subscribers/${confirmed.body.data.subscriber_id}`);
  assert.equal(subscriber.body.data.status, 'active');
  assert.equal((await api.post(`/signups/${ana.id}/confirm`, { reason: 'again' })).status, 409);
  assert.equal((await api.get('/signups?status=confirmed')).body.data.signups.length, 1);
});

test('another account sees none of them; a read-only key cannot confirm; unknown ids are 404', async () => {
  const other = await s.restAccount();
  assert.equal((await other.api.get('/signups')).body.data.signups.length, 0);
  const bo = (await api.get('/signups')).body.data.signups[0];
  assert.equal((await other.api.post(`/signups/${bo.id}/confirm`, { reason: 'mine' })).status, 404);
  assert.equal((await other.api.post(`/signups/${bo.id}/resend`)).status, 404);
  const reader = await s.restAccount({ scopes: ['subscribers:read'] });
  assert.equal((await reader.api.post(`/signups/${bo.id}/confirm`, { reason: 'x' })).status, 403);
  assert.equal((await api.post(`/signups/00000000-0000-4000-8000-000000000000/confirm`, { reason: 'x' })).status, 404);
  assert.equal((await api.post(`/signups/nope/resend`)).status, 404);
});
