// Numbers and dates that reach the database through REST: automation delays, segment rule values and
// date custom fields. Whatever PostgreSQL could not store or cast is a 400 naming the field, never a 500.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { startServer } from '../../support/server.ts';

const s = await startServer(fileScope);
const account = () => s.restAccount({ scopes: ['*'] });

/** A raw JSON body, so that 1e400 and 2^63 reach the server as written. */
async function raw(key: string, method: string, path: string, json: string) {
  const res = await fetch(`${s.url}/api/v1/external${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: json,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const BAD_INTS = ['2147483648', '9007199254740992', '9223372036854775808', '-1', '1.5', '1e400', '"12"', '"NaN"'];
const BAD_DAYS = ['"12345"', '12345', '"2026-13-01"', '"2026-02-30"', '"0000-01-01"', '"+275760-09-13"'];

describe('REST: numbers and dates', () => {
  test('an automation delay amount out of range, fractional or not a number → 400 naming steps.0.amount', async () => {
    const { key } = await account();
    for (const n of BAD_INTS) {
      const r = await raw(
        key,
        'POST',
        '/automations',
        `{"name":"D","trigger":{"type":"subscriber_created"},"steps":[{"type":"delay","amount":${n},"unit":"days"}]}`,
      );
      assert.equal(r.status, 400, `${n}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error, /amount: Must be a whole number from 1 to 100000$/, n);
    }
  });

  test('segment date rules and date custom fields: not a day PostgreSQL can cast → 400 naming the field', async () => {
    const { key, api } = await account();
    assert.equal((await api.post('/fields', { key: 'birthday', type: 'date' })).status, 201);
    for (const v of [...BAD_DAYS, '"2026-01-01T00:00:00"', '"0000-01-01T00:00:00Z"']) {
      const rule = (field: string, operator: string) =>
        raw(
          key,
          'POST',
          '/segments',
          `{"name":"S","filter":{"match":"all","rules":[{"field":"${field}","operator":"${operator}","value":${v}}]}}`,
        );
      for (const r of [await rule('created_at', 'after'), await rule('custom_fields.birthday', 'before')]) {
        assert.equal(r.status, 400, `${v}: ${JSON.stringify(r.body)}`);
        assert.match(JSON.stringify(r.body.data), /value/, v);
      }
    }
    for (const v of BAD_DAYS) {
      const r = await raw(key, 'POST', '/subscribers', `{"email":"d@example.com","custom_fields":{"birthday":${v}}}`);
      assert.equal(r.status, 400, `${v}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.data['custom_fields.birthday'], JSON.stringify(r.body));
    }
    const ok = await api.post('/subscribers', { email: 'd@example.com', custom_fields: { birthday: '1990-02-28' } });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    const seg = await api.post('/segments', {
      name: 'Born',
      filter: { match: 'all', rules: [{ field: 'custom_fields.birthday', operator: 'before', value: '2000-01-01' }] },
    });
    assert.equal(seg.status, 201, JSON.stringify(seg.body));
    assert.equal(seg.body.data.subscriber_count, 1);
  });
});
