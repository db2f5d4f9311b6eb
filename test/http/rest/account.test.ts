// GET/PUT /api/v1/external/account (our addition): the key's own account — name, sender defaults, time
// zone (IANA), postal address, tracking default, the checks it blocks a send on, its own bounce mailbox
// (write-only) — partial updates, bad
// input as 400 with the field map and nothing stored, the account scopes, and one account never seeing
// or changing another.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileScope } from '../../support/scope.ts';
import { keysOf, restClient, startServer } from '../../support/server.ts';

const s = await startServer(fileScope);

const FIELDS = [
  'blocking_checks',
  'bounce_mailbox',
  'created_at',
  'default_from_email',
  'default_from_name',
  'default_reply_to',
  'id',
  'name',
  'postal_address',
  'subscriber_limit',
  'timezone',
  'tracking_enabled',
  'updated_at',
];

describe('GET /account', () => {
  test("the key's account, with no address yet", async () => {
    const { api, accountId } = await s.restAccount();
    const res = await api.get('/account');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(keysOf(res.body.data), FIELDS);
    assert.equal(res.body.data.id, accountId);
    assert.equal(res.body.data.postal_address, null);
    assert.equal(res.body.data.timezone, 'UTC');
    assert.deepEqual(res.body.data.blocking_checks, []);
  });
});

describe('PUT /account', () => {
  test('changes only the fields given; the address keeps its lines; clearing it with null or ""', async () => {
    const { api } = await s.restAccount();
    const res = await api.put('/account', {
      name: '  Acme Garden  ',
      postal_address: 'Acme Garden Ltd\r\n1 Main Street\r\nSpringfield 12345',
      timezone: 'Europe/Berlin',
      default_from_email: 'news@acme.example.com',
      default_from_name: 'Acme',
      default_reply_to: 'hello@acme.example.com',
      tracking_enabled: false,
      blocking_checks: ['dmarc', 'preview_text', 'dmarc'],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const a = res.body.data;
    assert.equal(a.name, 'Acme Garden');
    assert.equal(a.postal_address, 'Acme Garden Ltd\n1 Main Street\nSpringfield 12345');
    assert.equal(a.timezone, 'Europe/Berlin');
    assert.deepEqual(a.blocking_checks, ['dmarc', 'preview_text']);
    assert.equal(a.tracking_enabled, false);
    const again = await api.put('/account', { default_from_name: 'Acme News' });
    assert.equal(again.body.data.postal_address, a.postal_address, 'untouched');
    assert.equal(again.body.data.default_from_name, 'Acme News');
    assert.equal((await api.put('/account', { postal_address: '   ' })).body.data.postal_address, null);
    await api.put('/account', { postal_address: 'x' });
    assert.equal((await api.put('/account', { postal_address: null })).body.data.postal_address, null);
    assert.equal((await api.put('/account', {})).status, 200, 'an empty change is no change');
  });

  test('bounce_imap_url: write-only, its host checked, shown back as bounce_mailbox; null removes it', async () => {
    const { api } = await s.restAccount();
    assert.deepEqual((await api.get('/account')).body.data.bounce_mailbox, {
      configured: false,
      host: null,
      last_polled_at: null,
      last_error: null,
    });
    for (const url of [
      'imaps://u:p@127.0.0.1/INBOX',
      'imaps://u:p@[::1]/INBOX',
      'pop3://u:p@mail.example',
      'imaps://mail.example',
    ]) {
      const res = await api.put('/account', { bounce_imap_url: url, name: 'Not stored' });
      assert.equal(res.status, 400, url);
      assert.ok(res.body.data?.bounce_imap_url, JSON.stringify(res.body));
    }
    assert.notEqual((await api.get('/account')).body.data.name, 'Not stored');
    const set = await api.put('/account', { bounce_imap_url: 'imaps://bounces:S3cret-Pw@93.184.216.34/INBOX' });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.data.bounce_mailbox, {
      configured: true,
      host: '93.184.216.34',
      last_polled_at: null,
      last_error: null,
    });
    const shown = JSON.stringify((await api.get('/account')).body);
    assert.ok(!shown.includes('S3cret-Pw') && !shown.includes('bounce_imap_url'));
    const removed = await api.put('/account', { bounce_imap_url: null });
    assert.equal(removed.body.data.bounce_mailbox.configured, false);
  });

  test('bad input: 400 naming the field, nothing stored', async () => {
    const { api } = await s.restAccount();
    const cases: [unknown, string][] = [
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ timezone: '+01:00' }, 'timezone'],
      [{ timezone: "UTC'; drop table accounts; --" }, 'timezone'],
      [{ postal_address: 'x'.repeat(501) }, 'postal_address'],
      [{ postal_address: Array(10).fill('line').join('\n') }, 'postal_address'],
      [{ postal_address: 'a\u0000b' }, 'postal_address'],
      [{ postal_address: 42 }, 'postal_address'],
      [{ name: '' }, 'name'],
      [{ default_from_email: 'not an address' }, 'default_from_email'],
      [{ blocking_checks: ['everything'] }, 'blocking_checks.0'],
      [{ blocking_checks: 'dmarc' }, 'blocking_checks'],
      [{ subscriber_limit: 1_000_000 }, '_'],
      [{ bounce_secret: 'mine' }, '_'],
    ];
    for (const [body, field] of cases) {
      const res = await api.put('/account', body);
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.data?.[field], `${field} in ${JSON.stringify(res.body.data)}`);
    }
    const after = (await api.get('/account')).body.data;
    assert.equal(after.timezone, 'UTC');
    assert.equal(after.postal_address, null);
    assert.deepEqual(after.blocking_checks, []);
    assert.equal((await api.put('/account', '[1]')).status, 400);
  });

  test('scopes: account:read reads, account:write changes, other scopes are refused', async () => {
    const { accountId } = await s.restAccount();
    const reader = restClient(s.url, (await s.newKey(accountId, ['account:read'])).key);
    const writer = restClient(s.url, (await s.newKey(accountId, ['account:write'])).key);
    const other = restClient(s.url, (await s.newKey(accountId, ['campaigns:*', 'subscribers:*'])).key);
    assert.equal((await reader.get('/account')).status, 200);
    const refused = await reader.put('/account', { postal_address: 'x' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.message, 'API key lacks the required permission: account:write');
    assert.equal((await writer.put('/account', { postal_address: '1 Main Street' })).status, 200);
    assert.equal((await other.get('/account')).status, 403);
    assert.equal((await other.put('/account', { name: 'Mine' })).status, 403);
  });

  test('each key sees and changes its own account only', async () => {
    const first = await s.restAccount();
    const second = await s.restAccount();
    await first.api.put('/account', { postal_address: 'First Street 1' });
    assert.equal((await second.api.get('/account')).body.data.postal_address, null);
    assert.equal((await second.api.get('/account')).body.data.id, second.accountId);
  });
});
