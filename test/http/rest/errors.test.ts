// Errors and edges: the envelope on every REST failure, 413 over 1 MB, 400 for malformed
// JSON, 415 for a wrong content type, 404 for non-UUID ids and unknown routes, never a 5xx for bad input.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, describe, test } from 'node:test';
import { client, keysOf, restClient, startServer } from '../../support/server.ts';

const s = await startServer({ after });
const { key, accountId } = await s.newAccount();
const api = restClient(s.url, key);

/** A failure envelope: success false, an error text, and nothing beyond the spec's fields. */
function assertFailure(res: { status: number; body: any }, status: number, what: string) {
  assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(typeof res.body, 'object', what);
  assert.equal(res.body.success, false, what);
  assert.equal(typeof res.body.error, 'string', what);
  for (const k of Object.keys(res.body))
    assert.ok(['success', 'error', 'message', 'data'].includes(k), `${what}: unexpected ${k}`);
}

/** A raw request, for bodies and headers fetch will not send (no content type, a lying length). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.url}/api/v1/external${path}`,
      { method, headers: { authorization: `Bearer ${key}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode!, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('Errors', () => {
  test('Errors › JSON body over 1 MB → 413 envelope', async () => {
    const big = JSON.stringify({ email: 'big@example.com', first_name: 'x'.repeat(1024 * 1024 + 10) });
    for (const [method, path] of [
      ['POST', '/subscribers'],
      ['PUT', '/subscribers/00000000-0000-0000-0000-000000000000'],
      ['POST', '/fields'],
    ] as const) {
      assertFailure(await api.call(method, path, big), 413, `${method} ${path}`);
    }
    const count = await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute();
    assert.equal(count.length, 0);
  });

  test('Errors › a JSON body just under 1 MB is read (and judged on its content: 400, not 413)', async () => {
    const body = JSON.stringify({ email: 'big@example.com', first_name: 'x'.repeat(1000 * 1000) });
    const res = await api.post('/subscribers', body);
    assertFailure(res, 400, 'large but allowed');
    assert.deepEqual(Object.keys(res.body.data), ['first_name']);
  });

  test('Errors › malformed JSON → 400 envelope', async () => {
    for (const body of [
      '{',
      '{"email":',
      "{'email':'a@example.com'}",
      'nul',
      '{"email":"a@example.com",}',
      '\u0000',
      '{"a":1}garbage',
    ]) {
      assertFailure(await api.post('/subscribers', body), 400, `POST ${JSON.stringify(body)}`);
      assertFailure(
        await api.put('/subscribers/00000000-0000-0000-0000-000000000000', body),
        400,
        `PUT ${JSON.stringify(body)}`,
      );
    }
  });

  test('Errors › JSON that is not an object → 400 envelope', async () => {
    const id = (await api.post('/subscribers', { email: 'shape@example.com' })).body.data.id;
    for (const body of ['[]', '"a@example.com"', '42', 'true', 'null', '[{"email":"a@example.com"}]']) {
      for (const res of [
        await api.post('/subscribers', body),
        await api.put(`/subscribers/${id}`, body),
        await api.post('/fields', body),
      ]) {
        assertFailure(res, 400, body);
        assert.deepEqual(res.body.data, { body: ['Request body must be a JSON object'] });
      }
    }
    await api.delete(`/subscribers/${id}`);
  });

  test('Errors › prototype-pollution keys are refused, and pollute nothing', async () => {
    for (const body of [
      '{"email":"p@example.com","__proto__":{"status":"bounced"}}',
      '{"email":"p@example.com","constructor":{"prototype":{"polluted":true}}}',
    ]) {
      const res = await api.post('/subscribers', body);
      assert.ok([201, 400].includes(res.status), body);
      assert.equal(({} as any).status, undefined);
      assert.equal(({} as any).polluted, undefined);
      if (res.status === 201) {
        assert.equal(res.body.data.status, 'active');
        await api.delete(`/subscribers/${res.body.data.id}`);
      }
    }
  });

  test('Errors › wrong content type → 415 envelope', async () => {
    const body = 'email=a%40example.com';
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
      'multipart/form-data; boundary=x',
      'image/png',
    ]) {
      assertFailure(await api.post('/subscribers', body, { 'content-type': type }), 415, `POST ${type}`);
      assertFailure(
        await api.put('/subscribers/00000000-0000-0000-0000-000000000000', body, { 'content-type': type }),
        415,
        `PUT ${type}`,
      );
      assertFailure(await api.post('/fields', body, { 'content-type': type }), 415, `POST /fields ${type}`);
    }
    const count = await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).execute();
    assert.equal(count.length, 0, 'nothing created through a form body');
  });

  test('Errors › a body without a content type → 415 envelope; JSON with a charset is fine', async () => {
    assertFailure(await raw('POST', '/subscribers', {}, '{"email":"a@example.com"}'), 415, 'no content type');
    const ok = await raw(
      'POST',
      '/subscribers',
      { 'content-type': 'application/json; charset=utf-8' },
      '{"email":"charset@example.com"}',
    );
    assert.equal(ok.status, 201);
    await api.delete(`/subscribers/${ok.body.data.id}`);
  });

  test('Errors › an empty body is an empty request (400 field map on create, not a crash)', async () => {
    const res = await raw('POST', '/subscribers', { 'content-length': '0' });
    assertFailure(res, 400, 'empty POST');
    assert.deepEqual(Object.keys(res.body.data), ['email']);
    assertFailure(
      await raw('POST', '/subscribers', { 'content-type': 'application/json' }, ''),
      400,
      'empty JSON body',
    );
  });

  test('Errors › NUL characters and unpaired surrogates → 400 naming the field (PostgreSQL cannot store them)', async () => {
    const id = (await api.post('/subscribers', { email: 'nul@example.com' })).body.data.id;
    await api.post('/fields', { key: 'company' });
    const cases: [string, string, string, string][] = [
      ['POST', '/subscribers', '{"email":"x@example.com","first_name":"a\\u0000b"}', 'first_name'],
      ['POST', '/subscribers', '{"email":"x@example.com","last_name":"\\ud800"}', 'last_name'],
      ['PUT', `/subscribers/${id}`, '{"custom_fields":{"company":"\\udfffx"}}', 'custom_fields.company'],
      ['PUT', `/subscribers/${id}`, '{"custom_fields":{"company":"\\u0000"}}', 'custom_fields.company'],
      ['POST', '/fields', '{"key":"city","name":"\\u0000"}', 'name'],
      ['GET', '/subscribers?search=%00', '', 'search'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await api.call(method, path, body || undefined);
      assertFailure(res, 400, `${method} ${path} ${body}`);
      assert.deepEqual(
        res.body.data,
        { [field]: ['Must not contain NUL, control characters or unpaired surrogates'] },
        body,
      );
    }
    const emoji = await api.post('/subscribers', { email: 'emoji@example.com', first_name: '😀 Zoë 中文' });
    assert.equal(emoji.status, 201, 'paired surrogates (emoji) are ordinary text');
    assert.equal((await api.get(`/subscribers/${emoji.body.data.id}`)).body.data.first_name, '😀 Zoë 中文');
  });

  test('Errors › deeply nested JSON is a 400, not a stack overflow', async () => {
    for (const body of ['['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000)]) {
      const res = await api.post('/subscribers', body);
      assertFailure(res, 400, body.slice(0, 10));
    }
    const nested = await api.post(
      '/subscribers',
      `{"email":"deep@example.com","custom_fields":{"company":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`,
    );
    assertFailure(nested, 400, 'nested custom field');
  });

  test('Errors › non-UUID ids → 404 envelope (they never reach SQL)', async () => {
    for (const id of [
      '1',
      'abc',
      '00000000-0000-0000-0000-00000000000g',
      '00000000000000000000000000000000x',
      "1' or '1'='1",
      '%00',
      '%E2%82%AC',
      'null',
      'undefined',
      '-1',
      '1e9',
    ]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await api.call(method, `/subscribers/${id}`, method === 'PUT' ? {} : undefined);
        assertFailure(res, 404, `${method} ${id}`);
        assert.equal(res.body.error, 'Subscriber not found');
      }
      assertFailure(await api.delete(`/fields/${id}`), 404, `DELETE field ${id}`);
    }
  });

  test('Errors › a path with broken percent-encoding → 400 envelope; an over-long id → 404 envelope', async () => {
    for (const path of ['/subscribers/%FF', '/subscribers/%C0%AF', '/fields/%E2%82', '/subscribers/%']) {
      assertFailure(await api.get(path), 400, path);
      assertFailure(await api.delete(path), 400, `DELETE ${path}`);
    }
    assertFailure(await client(s.url, 'test-admin-token').get('/admin/v1/accounts/%FF'), 400, 'admin');
    for (const method of ['GET', 'PUT', 'DELETE'] as const)
      assertFailure(
        await api.call(method, `/subscribers/${'0'.repeat(300)}`, method === 'PUT' ? {} : undefined),
        404,
        method,
      );
  });

  test('Errors › headers over 16 KB → 431 envelope (refused before routing)', async () => {
    assertFailure(await api.get(`/subscribers?${'page=1&'.repeat(3000)}`), 431, 'long query');
    assertFailure(await api.get('/subscribers', { 'x-padding': 'x'.repeat(20_000) }), 431, 'long header');
    assert.equal((await api.get('/subscribers')).status, 200, 'the server carries on');
  });

  test('Errors › unknown routes → 404 envelope', async () => {
    for (const path of [
      '/nope',
      '/subscribers/00000000-0000-0000-0000-000000000000/extra',
      '/subscriber',
      '/test-auth/x',
    ]) {
      assertFailure(await api.get(path), 404, path);
    }
    assertFailure(await api.patch('/subscribers/00000000-0000-0000-0000-000000000000', {}), 404, 'PATCH has no route');
    assertFailure(await api.call('DELETE', '/subscribers'), 404, 'DELETE on the collection');
    assertFailure(await client(s.url).get('/api/v2/external/subscribers'), 404, 'outside the versioned path');
    assertFailure(await client(s.url).get('/definitely/not/here'), 404, 'outside the API');
  });

  test('Errors › 401 comes before everything else for a request without a key', async () => {
    const anon = restClient(s.url);
    assertFailure(await anon.post('/subscribers', '{'), 401, 'malformed JSON without a key');
    assertFailure(await anon.get('/nope'), 401, 'unknown route without a key');
  });

  test('Errors › the envelope on success: success true and data (message only where the spec has it)', async () => {
    const created = await api.post('/subscribers', { email: 'env@example.com' });
    assert.deepEqual(keysOf(created.body), ['data', 'success']);
    assert.deepEqual(keysOf((await api.get('/subscribers')).body), ['data', 'success']);
    assert.deepEqual(keysOf((await api.get('/subscribers/stats')).body), ['data', 'success']);
    assert.deepEqual(keysOf((await api.put(`/subscribers/${created.body.data.id}`, {})).body), ['data', 'success']);
    assert.deepEqual(keysOf((await api.delete(`/subscribers/${created.body.data.id}`)).body), ['message', 'success']);
  });

  test('Errors › responses are JSON', async () => {
    for (const res of [
      await api.get('/subscribers'),
      await api.get('/nope'),
      await restClient(s.url).get('/subscribers'),
      await api.post('/subscribers', '{'),
    ]) {
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    }
  });
});
