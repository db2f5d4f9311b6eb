// Idempotency-Key on REST POSTs (our addition): a retry gets the first answer and creates nothing twice;
// the same key with another body is a 422; keys are per account; a 5xx is not kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope, { REST_RATE_LIMIT: 100_000 });

const count = async (accountId: string) =>
  Number(
    (
      await s.db
        .selectFrom('subscribers')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Idempotency-Key', () => {
  test('a retried create returns the first answer (replayed) and creates one subscriber', async () => {
    const { api, accountId } = await s.restAccount();
    const h = { 'idempotency-key': 'create-ada-1' };
    const first = await api.post('/subscribers', { email: 'ada@example.com', name: 'Ada' }, h);
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // the subscriber changes meanwhile: the replay is the first answer, not a new read
    await api.put(`/subscribers/${first.body.data.id}`, { name: 'Ada L.' });
    const again = await api.post('/subscribers', { email: 'ada@example.com', name: 'Ada' }, h);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(again.body, first.body);
    assert.match(again.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(await count(accountId), 1);
  });

  test('the same key with another body is a 422; another route is another request too', async () => {
    const { api } = await s.restAccount();
    const h = { 'idempotency-key': 'k-2' };
    assert.equal((await api.post('/subscribers', { email: 'a@example.com' }, h)).status, 201);
    const other = await api.post('/subscribers', { email: 'b@example.com' }, h);
    assert.equal(other.status, 422);
    assert.deepEqual(other.body, { success: false, error: 'Idempotency-Key was already used for a different request' });
    assert.equal((await api.post('/groups', { name: 'G' }, h)).status, 422);
  });

  test('keys are per account; a refused request is kept like any answer; no key, no replay', async () => {
    const a = await s.restAccount();
    const b = await s.restAccount();
    const h = { 'idempotency-key': 'shared-key' };
    assert.equal((await a.api.post('/groups', { name: 'Alpha' }, h)).status, 201);
    const theirs = await b.api.post('/groups', { name: 'Alpha' }, h);
    assert.equal(theirs.status, 201, 'another account may use the same key');
    assert.equal(theirs.headers.get('idempotent-replayed'), null);
    const bad = await a.api.post('/subscribers', { email: 'not-an-email' }, { 'idempotency-key': 'bad-1' });
    assert.equal(bad.status, 400);
    const badAgain = await a.api.post('/subscribers', { email: 'not-an-email' }, { 'idempotency-key': 'bad-1' });
    assert.equal(badAgain.status, 400);
    assert.equal(badAgain.headers.get('idempotent-replayed'), 'true');
    assert.equal((await a.api.post('/groups', { name: 'Beta' })).status, 201);
    assert.equal((await a.api.post('/groups', { name: 'Beta' })).status, 409, 'without a key each POST runs');
  });

  test('a key that is not 1-255 printable ASCII characters is a 400 naming the header', async () => {
    const { api } = await s.restAccount();
    for (const key of ['x'.repeat(256), 'has space', 'é']) {
      const r = await api.call('POST', '/groups', { name: 'G' }, { 'idempotency-key': key });
      assert.equal(r.status, 400, key);
      assert.equal(r.body.success, false);
      assert.ok(r.body.data?.['Idempotency-Key'], JSON.stringify(r.body));
    }
  });

  test('a retry while the first request runs is a 409; a key whose first request failed with a 5xx runs again', async () => {
    const { api, accountId } = await s.restAccount();
    await s.db
      .insertInto('idempotency_keys')
      .values({ account_id: accountId, key: 'running', fingerprint: 'x' })
      .execute();
    // same fingerprint needed for "in progress": take it from a real first request's row
    const r1 = await api.post('/groups', { name: 'Slow' }, { 'idempotency-key': 'probe' });
    const fp = (
      await s.db
        .selectFrom('idempotency_keys')
        .select('fingerprint')
        .where('account_id', '=', accountId)
        .where('key', '=', 'probe')
        .executeTakeFirstOrThrow()
    ).fingerprint;
    assert.equal(r1.status, 201);
    await s.db
      .updateTable('idempotency_keys')
      .set({ fingerprint: fp, status: null, response: null })
      .where('account_id', '=', accountId)
      .where('key', '=', 'running')
      .execute();
    const busy = await api.post('/groups', { name: 'Slow' }, { 'idempotency-key': 'running' });
    assert.equal(busy.status, 409);
    // an abandoned first request (5 minutes without an answer) frees its key
    await s.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 6 * 60_000) })
      .where('account_id', '=', accountId)
      .where('key', '=', 'running')
      .execute();
    const later = await api.post('/groups', { name: 'Slow 2' }, { 'idempotency-key': 'running' });
    assert.equal(later.status, 201);
    assert.equal(later.headers.get('idempotent-replayed'), null);
  });

  test('an upload retried with a new multipart boundary is the same request: one import', async () => {
    const { key, accountId } = await s.restAccount();
    const send = (csv: string) => {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'list.csv');
      return fetch(`${s.url}/api/v1/external/subscribers/import-async`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'import-1' },
        body: form,
      });
    };
    const first = await send('email\nada@example.com\n');
    assert.equal(first.status, 200, await first.clone().text());
    const again = await send('email\nada@example.com\n');
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await again.json(), await first.json());
    assert.equal((await send('email\ngrace@example.com\n')).status, 422, 'another file under the same key');
    const imports = await s.db.selectFrom('imports').select('id').where('account_id', '=', accountId).execute();
    assert.equal(imports.length, 1);
  });
});
