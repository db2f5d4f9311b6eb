// Numbers and dates at the edge of the admin API: subscriber_limit is an int column and expires_at a
// timestamptz, so anything the database could not store is a 400 naming the field, never a 500.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { ADMIN_TOKEN, client, startServer } from '../../support/server.ts';

const s = await startServer(fileScope);
const admin = client(`${s.url}/admin/v1`, ADMIN_TOKEN);

// JSON numbers past int4 and double, fractions, negatives and things that only look like numbers
const BAD_INTS = [
  '2147483648',
  '9007199254740992',
  '9223372036854775808',
  '-1',
  '1.5',
  '1e400',
  '"12"',
  '"NaN"',
  'null',
];
const BAD_INSTANTS = [
  '"12345"',
  '12345',
  '"2026-13-01T00:00:00Z"',
  '"2026-01-01"',
  '"2026-01-01T00:00:00"',
  '"0000-01-01T00:00:00Z"',
  '"+275760-09-13T00:00:00Z"',
  '"tomorrow"',
];

/** A raw JSON body, so that 1e400 and 2^63 reach the server as written. */
async function raw(method: string, path: string, json: string) {
  const res = await fetch(`${s.url}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: json,
  });
  return { status: res.status, body: (await res.json()) as any };
}

function refused(res: { status: number; body: any }, field: string, input: string) {
  assert.equal(res.status, 400, `${input}: ${JSON.stringify(res.body)}`);
  assert.ok(res.body.data?.[field], `${input} names ${field}: ${JSON.stringify(res.body)}`);
  assert.match(res.body.error, new RegExp(`^${field}: `), input);
}

describe('Admin API: numbers and dates', () => {
  test('subscriber_limit out of int range, negative, fractional or not a number → 400 naming it, on create and update', async () => {
    const id = (await admin.post('/accounts', { name: 'Bounds' })).body.data.id;
    for (const n of BAD_INTS) {
      refused(await raw('POST', '/accounts', `{"name":"x","subscriber_limit":${n}}`), 'subscriber_limit', n);
      refused(await raw('PATCH', `/accounts/${id}`, `{"subscriber_limit":${n}}`), 'subscriber_limit', n);
    }
    const max = await raw('POST', '/accounts', '{"name":"x","subscriber_limit":2147483647}');
    assert.equal(max.status, 201);
    assert.equal(max.body.data.subscriber_limit, 2147483647);
    assert.equal((await raw('PATCH', `/accounts/${id}`, '{"subscriber_limit":0}')).body.data.subscriber_limit, 0);
  });

  test('expires_at that is not an ISO date-time with offset (or out of range) → 400 naming it; a good one is kept', async () => {
    const id = (await admin.post('/accounts', { name: 'Keys', owner_email: `o-${randomUUID()}@example.com` })).body.data
      .id;
    for (const v of BAD_INSTANTS) {
      refused(
        await raw('POST', `/accounts/${id}/api-keys`, `{"name":"k","scopes":["*"],"expires_at":${v}}`),
        'expires_at',
        v,
      );
    }
    const good = await admin.post(`/accounts/${id}/api-keys`, {
      name: 'k',
      scopes: ['*'],
      expires_at: '2030-06-01T12:00:00+02:00',
    });
    assert.equal(good.status, 201, JSON.stringify(good.body));
    assert.equal(new Date(good.body.data.expires_at).toISOString(), '2030-06-01T10:00:00.000Z');
    const none = await admin.post(`/accounts/${id}/api-keys`, { name: 'k', scopes: ['*'], expires_at: null });
    assert.equal(none.status, 201);
    assert.equal(none.body.data.expires_at, null);
  });
});
