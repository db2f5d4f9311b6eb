// REST /api/v1/external/suppressions (our addition): list newest first with each reason, add one, add a
// CSV, remove, export; bad input and another account's ids; a manual entry keeps a campaign from mailing
// the address and is counted in the campaign's suppressed_count; forgetting drops a manual entry's text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { forgetSubscriber } from '../../../src/domain/forget/forget.ts';
import { seedAudience, waitForCampaign } from '../../support/campaigns.ts';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { WORKER_POLL_MS: 100 });
const MISSING = '00000000-0000-4000-8000-000000000000';
const account = (scopes = ['*']) => s.restAccount({ scopes });
const csv = (text: string) => ({ 'content-type': 'text/csv' }) as Record<string, string>;

describe('REST suppressions', () => {
  test('add one → 201 manual with the address; the same address again (any case) → 409; bad input → 400', async () => {
    const { api } = await account();
    const r = await api.post('/suppressions', { email: ' Ada@Example.com ' });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.data.email, 'Ada@Example.com');
    assert.equal(r.body.data.reason, 'manual');
    assert.equal(r.body.data.subscriber_id, null);
    assert.ok(r.body.data.id && r.body.data.created_at);
    const again = await api.post('/suppressions', { email: 'ada@example.COM' });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body, { success: false, error: 'Address is already on the suppression list' });
    for (const body of [{ email: 'not an email' }, { email: 'a\u0000b@example.com' }, {}, { email: 7 }]) {
      const bad = await api.post('/suppressions', body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.success, false);
    }
    assert.equal((await api.post('/suppressions', '[1]')).status, 400);
  });

  test('the list: newest first, manual, bounced, complained and forgotten (no address kept), paged', async () => {
    const { api, accountId } = await account();
    const b = (await api.post('/subscribers', { email: 'bounce@example.com' })).body.data;
    const c = (await api.post('/subscribers', { email: 'complain@example.com' })).body.data;
    const f = (await api.post('/subscribers', { email: 'forget@example.com' })).body.data;
    await s.db
      .updateTable('subscribers')
      .set({ status: 'bounced', updated_at: new Date(Date.now() - 3000) })
      .where('id', '=', b.id)
      .execute();
    await s.db
      .updateTable('subscribers')
      .set({ status: 'complained', updated_at: new Date(Date.now() - 2000) })
      .where('id', '=', c.id)
      .execute();
    await forgetSubscriber(s.db, s.config.secret, accountId, f.id);
    await new Promise((r) => setTimeout(r, 20));
    await api.post('/suppressions', { email: 'manual@example.com' });
    const list = await api.get('/suppressions');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.suppressions.map((e: any) => [e.reason, e.email, e.subscriber_id]),
      [
        ['manual', 'manual@example.com', null],
        ['forgotten', null, null],
        ['complained', 'complain@example.com', c.id],
        ['bounced', 'bounce@example.com', b.id],
      ],
    );
    assert.deepEqual(list.body.data.pagination, { current_page: 1, total_pages: 1, total_count: 4, per_page: 25 });
    const page2 = await api.get('/suppressions?per_page=3&page=2');
    assert.deepEqual(
      page2.body.data.suppressions.map((e: any) => e.reason),
      ['bounced'],
    );
    assert.equal((await api.get('/suppressions?page=0')).status, 400);
    // another account sees none of it
    const other = await account();
    assert.equal((await other.api.get('/suppressions')).body.data.pagination.total_count, 0);
  });

  test('CSV upload: the email column, bad rows reported, duplicates counted; not a CSV → 4xx', async () => {
    const { api } = await account();
    await api.post('/suppressions', { email: 'old@example.com' });
    const text = 'name,email\nAda,ada@example.com\nBob,not-an-email\nOld,OLD@example.com\nAda again,ada@example.com\n';
    const r = await api.post('/suppressions/import', text, csv(text));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, {
      added: 1,
      already_listed: 2,
      invalid_count: 1,
      invalid: [{ row: 3, value: 'not-an-email', reason: 'A valid email address is required' }],
    });
    // no header: the first column; JSON {csv} is the same upload
    const plain = await api.post('/suppressions/import', { csv: 'x@example.com;X\ny@example.com;Y' });
    assert.equal(plain.body.data.added, 2);
    const emails = (await api.get('/suppressions')).body.data.suppressions.map((e: any) => e.email).sort();
    assert.deepEqual(emails, ['ada@example.com', 'old@example.com', 'x@example.com', 'y@example.com']);

    const binary = 'email\nada\u0000@example.com\n';
    for (const [body, headers] of [
      [binary, csv(binary)],
      ['', csv('')],
      ['name\nnobody here\n', csv('')],
      [{ csv: 12 }, {}],
      ['PK\u0003\u0004', { 'content-type': 'application/zip' }],
    ] as const) {
      const bad = await api.post('/suppressions/import', body, headers as Record<string, string>);
      assert.ok(bad.status >= 400 && bad.status < 500, `${JSON.stringify(body)} → ${bad.status}`);
      assert.equal(bad.body.success, false);
    }
    const zip = await api.post('/suppressions/import', 'PK\u0003\u0004', { 'content-type': 'application/zip' });
    assert.equal(zip.status, 415);
    const nul = await api.post('/suppressions/import', binary, csv(binary));
    assert.equal(nul.status, 400);
    assert.ok(nul.body.data.file || nul.body.data.body, JSON.stringify(nul.body));
  });

  test('remove by id; again, unknown, not a uuid, another account → 404; a bounced subscriber → 409', async () => {
    const { api } = await account();
    const e = (await api.post('/suppressions', { email: 'gone@example.com' })).body.data;
    const other = await account();
    assert.equal((await other.api.delete(`/suppressions/${e.id}`)).status, 404);
    const del = await api.delete(`/suppressions/${e.id}`);
    assert.deepEqual(del.body, { success: true, message: 'Suppression deleted', data: { id: e.id, deleted: true } });
    for (const id of [e.id, MISSING, 'nope']) {
      const r = await api.delete(`/suppressions/${id}`);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { success: false, error: 'Suppression not found' });
    }
    const b = (await api.post('/subscribers', { email: 'b@example.com' })).body.data;
    await s.db.updateTable('subscribers').set({ status: 'bounced' }).where('id', '=', b.id).execute();
    assert.equal((await api.delete(`/suppressions/${b.id}`)).status, 409);
    assert.equal((await other.api.delete(`/suppressions/${b.id}`)).status, 404);
    // removed: the address can be added again
    assert.equal((await api.post('/suppressions', { email: 'gone@example.com' })).status, 201);
  });

  test('export: CSV of the whole list, a forgotten entry without its address, cells defused', async () => {
    const { api, accountId } = await account();
    const f = (await api.post('/subscribers', { email: 'forget@example.com' })).body.data;
    await forgetSubscriber(s.db, s.config.secret, accountId, f.id);
    await api.post('/suppressions', { email: '-cmd@example.com' });
    const r = await api.get('/suppressions/export');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/csv/);
    const lines = (r.body as string).trim().split('\n');
    assert.equal(lines[0], 'id,email,reason,subscriber_id,created_at');
    assert.equal(lines.length, 3);
    assert.match(lines[1]!, /^[0-9a-f-]{36},'-cmd@example.com,manual,,/);
    assert.match(lines[2]!, /^[0-9a-f-]{36},,forgotten,,/);
    assert.ok(!(r.body as string).includes('forget@example.com'));
  });

  test('scopes: subscribers:read lists and exports, cannot add, import or remove', async () => {
    const { api } = await account(['subscribers:read']);
    assert.equal((await api.get('/suppressions')).status, 200);
    assert.equal((await api.get('/suppressions/export')).status, 200);
    assert.equal((await api.post('/suppressions', { email: 'a@example.com' })).status, 403);
    assert.equal((await api.post('/suppressions/import', { csv: 'a@example.com' })).status, 403);
    assert.equal((await api.delete(`/suppressions/${MISSING}`)).status, 403);
    const none = await account(['campaigns:read']);
    assert.equal((await none.api.get('/suppressions')).status, 403);
  });

  test('forgetting a manually suppressed address keeps only its hash', async () => {
    const { api, accountId } = await account();
    await api.post('/suppressions', { email: 'twice@example.com' });
    const sub = (await api.post('/subscribers', { email: 'Twice@example.com' })).body.data;
    await forgetSubscriber(s.db, s.config.secret, accountId, sub.id);
    const rows = await s.db.selectFrom('suppressions').selectAll().where('account_id', '=', accountId).execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.reason, 'forgotten');
    assert.equal(rows[0]!.email, null);
    const list = (await api.get('/suppressions')).body.data.suppressions;
    assert.deepEqual(
      list.map((e: any) => [e.reason, e.email]),
      [['forgotten', null]],
    );
  });

  test('a campaign never mails a manual entry (subscribed before or after), and counts them', async () => {
    const { api, accountId } = await account();
    const { groupId } = await seedAudience(s.db, accountId, 3, { domain: 'supp.example' });
    // r1 was a subscriber before the entry, late@ is written after it (the trigger's path)
    await api.post('/suppressions', { email: 'R1@supp.example' });
    await api.post('/subscribers', { email: 'late@supp.example', group_ids: [groupId] });
    await api.post('/suppressions/import', { csv: 'late@supp.example' });
    const late2 = await api.post('/subscribers', { email: 'later@supp.example', group_ids: [groupId] });
    assert.equal(late2.status, 201);
    await api.post('/suppressions', { email: 'later@supp.example' });
    const c = (
      await api.post('/campaigns', {
        name: 'Supp',
        subject: 'Hi',
        content_html: '<p>Hi</p>',
        from_email: 'news@example.com',
        group_ids: [groupId],
      })
    ).body.data;
    assert.equal((await api.post(`/campaigns/${c.id}/schedule`, { delivery: 'instant' })).status, 200);
    const done = await waitForCampaign(api, c.id, (x) => x.status === 'sent');
    assert.equal(done.stats.recipients, 2);
    assert.ok(!('suppressed_count' in done));
    const row = await s.db
      .selectFrom('campaigns')
      .select('suppressed_count')
      .where('id', '=', c.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.suppressed_count, 3);
    const mailed = await s.db
      .selectFrom('campaign_recipients')
      .select('email')
      .where('campaign_id', '=', c.id)
      .execute();
    assert.deepEqual(mailed.map((m) => m.email).sort(), ['r2@supp.example', 'r3@supp.example']);
    // removing an entry: the address is mailed again by the next campaign
    const entry = (await api.get('/suppressions')).body.data.suppressions.find(
      (e: any) => e.email === 'R1@supp.example',
    );
    await api.delete(`/suppressions/${entry.id}`);
    const again = (await api.post(`/campaigns/${c.id}/duplicate`)).body.data;
    await api.post(`/campaigns/${again.id}/schedule`, { delivery: 'instant' });
    await waitForCampaign(api, again.id, (x) => x.status === 'sent');
    const next = await s.db
      .selectFrom('campaigns')
      .select('suppressed_count')
      .where('id', '=', again.id)
      .executeTakeFirstOrThrow();
    assert.equal(next.suppressed_count, 2);
  });
});
