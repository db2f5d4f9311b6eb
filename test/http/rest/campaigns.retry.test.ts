// REST POST /campaigns/{id}/retry (our addition): which ledger rows go back to the queue (failed with a
// transient failure by default, interrupted only when asked, never sent or skipped), the campaign back to
// sending, a second call requeuing nothing, wrong states → 409, another account's id → 404, bad bodies → 400.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

// no workers: rows stay exactly as the test leaves them
const s = await startServer(fileScope, { WORKERS: false });
const MISSING = '00000000-0000-4000-8000-000000000000';
const STATE = { success: false, error: 'Only sending or sent campaigns can be retried' };

async function campaign(api: any, groupId: string) {
  const r = await api.post('/campaigns', {
    name: 'Retry',
    subject: 'Hi',
    content_html: '<p>Hi</p>',
    from_email: 'news@example.com',
    group_ids: [groupId],
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.id as string;
}

/** A sent campaign whose six rows ended sent, skipped, interrupted and failed (expired, error, bounced). */
async function sentCampaign() {
  const a = await s.restAccount();
  const { groupId } = await seedAudience(s.db, a.accountId, 6, { domain: 'retry.test' });
  const id = await campaign(a.api, groupId);
  assert.equal((await a.api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' })).status, 200);
  const rows = await s.db
    .selectFrom('campaign_recipients')
    .select(['id', 'email'])
    .where('campaign_id', '=', id)
    .orderBy('id')
    .execute();
  const ends = [
    { state: 'sent', failure: null },
    { state: 'skipped', failure: null },
    { state: 'interrupted', failure: null },
    { state: 'failed', failure: 'expired' },
    { state: 'failed', failure: 'error' },
    { state: 'failed', failure: 'bounced' },
  ] as const;
  for (const [i, end] of ends.entries())
    await s.db
      .updateTable('campaign_recipients')
      .set({ state: end.state, failure: end.failure, attempts: 3, last_error: `end ${i}` })
      .where('id', '=', rows[i]!.id)
      .execute();
  await s.db.updateTable('campaigns').set({ status: 'sent', finished_at: new Date() }).where('id', '=', id).execute();
  return { ...a, id };
}

const statesOf = async (id: string) =>
  (
    await s.db
      .selectFrom('campaign_recipients')
      .select(['state', 'attempts', 'previous_errors', 'failure', 'last_error'])
      .where('campaign_id', '=', id)
      .orderBy('id')
      .execute()
  ).map((r) => r.state);

describe('REST campaign retry', () => {
  test('default: only transient failures go back to queued, the campaign to sending; again → requeued 0', async () => {
    const { api, id } = await sentCampaign();
    const r = await api.post(`/campaigns/${id}/retry`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { success: true, data: { requeued: 2, status: 'sending' } });
    assert.deepEqual(await statesOf(id), ['sent', 'skipped', 'interrupted', 'queued', 'queued', 'failed']);
    const c = (await api.get(`/campaigns/${id}`)).body.data;
    assert.equal(c.status, 'sending');
    assert.equal(c.finished_at, null);
    const row = await s.db
      .selectFrom('campaign_recipients')
      .selectAll()
      .where('campaign_id', '=', id)
      .where('state', '=', 'queued')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    assert.equal(row.attempts, 0);
    assert.equal(row.failure, null);
    assert.equal(row.previous_errors.length, 1);
    assert.deepEqual(
      { ...row.previous_errors[0], at: undefined },
      { state: 'failed', failure: 'expired', error: 'end 3', attempts: 3, at: undefined },
    );
    // idempotent: nothing is left to take, and the answer has the same shape
    assert.deepEqual((await api.post(`/campaigns/${id}/retry`, {})).body, {
      success: true,
      data: { requeued: 0, status: 'sending' },
    });
    assert.deepEqual(await statesOf(id), ['sent', 'skipped', 'interrupted', 'queued', 'queued', 'failed']);
  });

  test('interrupted rows only when asked; states ["interrupted"] leaves the failures alone', async () => {
    const { api, id } = await sentCampaign();
    const r = await api.post(`/campaigns/${id}/retry`, { states: ['interrupted'] });
    assert.deepEqual(r.body.data, { requeued: 1, status: 'sending' });
    assert.deepEqual(await statesOf(id), ['sent', 'skipped', 'queued', 'failed', 'failed', 'failed']);
    const both = await api.post(`/campaigns/${id}/retry`, { states: ['failed', 'interrupted'] });
    assert.deepEqual(both.body.data, { requeued: 2, status: 'sending' });
    assert.deepEqual(await statesOf(id), ['sent', 'skipped', 'queued', 'queued', 'queued', 'failed']);
  });

  test('a sent campaign with nothing to retry stays sent', async () => {
    const { api, id } = await sentCampaign();
    await s.db
      .deleteFrom('campaign_recipients')
      .where('campaign_id', '=', id)
      .where('state', 'in', ['failed', 'interrupted'])
      .execute();
    assert.deepEqual((await api.post(`/campaigns/${id}/retry`)).body.data, { requeued: 0, status: 'sent' });
    assert.equal((await api.get(`/campaigns/${id}`)).body.data.status, 'sent');
  });

  test('draft, scheduled and cancelled → 409; unknown, malformed or another account’s id → 404', async () => {
    const a = await s.restAccount();
    const { groupId } = await seedAudience(s.db, a.accountId, 2, { domain: 'state.test' });
    const id = await campaign(a.api, groupId);
    const draft = await a.api.post(`/campaigns/${id}/retry`);
    assert.equal(draft.status, 409);
    assert.deepEqual(draft.body, STATE);
    const at = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal(
      (await a.api.post(`/campaigns/${id}/schedule`, { delivery: 'scheduled', scheduled_at: at })).status,
      200,
    );
    assert.deepEqual((await a.api.post(`/campaigns/${id}/retry`)).body, STATE);
    const other = await campaign(a.api, groupId);
    await a.api.post(`/campaigns/${other}/schedule`, { delivery: 'instant' });
    await a.api.post(`/campaigns/${other}/cancel`);
    await waitForCampaign(a.api, other, (c) => c.status === 'cancelled');
    const cancelled = await a.api.post(`/campaigns/${other}/retry`);
    assert.equal(cancelled.status, 409);
    assert.deepEqual(cancelled.body, STATE);

    const { api, id: sent } = await sentCampaign();
    const stranger = await s.restAccount();
    for (const path of [`/campaigns/${sent}/retry`, `/campaigns/${MISSING}/retry`, '/campaigns/x/retry']) {
      const r = await (path.includes(sent) ? stranger.api : api).post(path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { success: false, error: 'Campaign not found' });
    }
    assert.deepEqual(await statesOf(sent), ['sent', 'skipped', 'interrupted', 'failed', 'failed', 'failed']);
  });

  test('bad bodies → 400 naming the field; campaigns:read cannot retry', async () => {
    const { api, id, accountId } = await sentCampaign();
    for (const body of [
      { states: ['sent'] },
      { states: ['skipped'] },
      { states: 'failed' },
      { states: [] },
      { states: ['failed\u0000'] },
      { state: ['failed'] },
      [],
      'null',
    ]) {
      const r = await api.post(`/campaigns/${id}/retry`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.success, false);
    }
    const bad = await api.post(`/campaigns/${id}/retry`, { states: ['sent'] });
    assert.deepEqual(Object.keys(bad.body.data), ['states.0']);
    const readOnly = await s.newKey(accountId, ['campaigns:read']);
    const res = await fetch(`${s.url}/api/v1/external/campaigns/${id}/retry`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readOnly.key}` },
    });
    assert.equal(res.status, 403);
    assert.deepEqual(await statesOf(id), ['sent', 'skipped', 'interrupted', 'failed', 'failed', 'failed']);
  });
});
