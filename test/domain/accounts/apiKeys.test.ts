// API keys: mailgrove_ + 32 lowercase hex, only a SHA-256 hash at rest, every authenticate
// outcome, revocation scoped by account and effective on the next call, last_used_at off the hot path.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as apiKeys from '../../../src/domain/accounts/apiKeys.ts';
import { NotFound, Validation } from '../../../src/domain/errors.ts';
import { permits } from '../../../src/domain/accounts/scopes.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const newAccount = async (owner = true) =>
  accounts.create(db, { name: 'Keys', ...(owner && { owner_email: `o-${Math.random()}@example.com` }) }, 1000);

describe('apiKeys domain', () => {
  test('create: 42 characters, mailgrove_ + 32 lowercase hex, random; only the SHA-256 hash and a hint are stored', async () => {
    const acc = await newAccount();
    const a = await apiKeys.create(db, acc.id, { name: 'A', scopes: ['*'] });
    const b = await apiKeys.create(db, acc.id, { name: 'B', scopes: ['*'] });
    for (const k of [a, b]) {
      assert.match(k.key, /^mailgrove_[0-9a-f]{32}$/);
      assert.equal(k.key.length, 42);
    }
    assert.notEqual(a.key, b.key);
    const row = await db.selectFrom('api_keys').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, createHash('sha256').update(a.key).digest('hex'));
    assert.equal(row.hint, `mailgrove_…${a.key.slice(-4)}`);
    assert.equal(row.user_id, acc.owner!.id, 'a key belongs to the owner unless a user is given');
    assert.ok(!(await apiKeys.list(db, acc.id)).some((k) => 'key' in k || 'key_hash' in k));
  });

  test('create validates name and scopes (Validation, not a ZodError)', async () => {
    const acc = await newAccount();
    await assert.rejects(apiKeys.create(db, acc.id, { name: ' ', scopes: ['*'] }), Validation);
    await assert.rejects(apiKeys.create(db, acc.id, { name: 'x', scopes: [] }), Validation);
    await assert.rejects(apiKeys.create(db, acc.id, { name: 'x', scopes: ['everything'] }), Validation);
  });

  test('authenticate: ok → the key context; unknown, revoked, expired each named', async () => {
    const acc = await newAccount();
    const k = await apiKeys.create(db, acc.id, { name: 'Ctx', scopes: ['subscribers:read'] });
    const ctx = await apiKeys.authenticate(db, k.key);
    assert.deepEqual(ctx, {
      keyId: k.id,
      accountId: acc.id,
      name: 'Ctx',
      scopes: ['subscribers:read'],
      userId: acc.owner!.id,
      idpUserId: acc.owner!.idp_user_id,
    });
    assert.equal(await apiKeys.authenticate(db, 'mailgrove_' + '0'.repeat(32)), 'unknown');
    assert.equal(await apiKeys.authenticate(db, k.key.toUpperCase()), 'unknown', 'keys are lowercase hex');
    assert.equal(await apiKeys.authenticate(db, k.key + '0'), 'unknown');
    const expired = await apiKeys.create(db, acc.id, {
      name: 'Old',
      scopes: ['*'],
      expires_at: new Date(Date.now() - 1),
    });
    assert.equal(await apiKeys.authenticate(db, expired.key), 'expired');
    await apiKeys.revoke(db, acc.id, k.id);
    assert.equal(await apiKeys.authenticate(db, k.key), 'revoked');
  });

  test("revoke is scoped by account (another account's key is NotFound and stays valid); the admin path (null) reaches any", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const k = await apiKeys.create(db, acc.id, { name: 'Mine', scopes: ['*'] });
    await assert.rejects(apiKeys.revoke(db, other.id, k.id), NotFound);
    assert.notEqual(typeof (await apiKeys.authenticate(db, k.key)), 'string');
    await apiKeys.revoke(db, null, k.id);
    assert.equal(await apiKeys.authenticate(db, k.key), 'revoked');
    await assert.rejects(apiKeys.revoke(db, null, '00000000-0000-4000-8000-000000000000'), NotFound);
  });

  test('a key of an account made without an owner email belongs to its service owner', async () => {
    const acc = await newAccount(false);
    const k = await apiKeys.create(db, acc.id, { name: 'Ownerless', scopes: ['*'] });
    const ctx = await apiKeys.authenticate(db, k.key);
    assert.ok(typeof ctx !== 'string');
    assert.deepEqual([ctx.userId, ctx.idpUserId], [acc.owner.id, `service|${acc.id}`]);
    await assert.rejects(
      apiKeys.create(db, '00000000-0000-4000-8000-000000000000', { name: 'Nowhere', scopes: ['*'] }),
      NotFound,
    );
  });

  test('scopes: * and <resource>:* patterns; read and write are separate', () => {
    assert.ok(permits(['*'], 'campaigns:write'));
    assert.ok(permits(['subscribers:*'], 'subscribers:write'));
    assert.ok(permits(['subscribers:*'], 'subscribers:read'));
    assert.ok(!permits(['subscribers:*'], 'groups:read'));
    assert.ok(!permits(['subscribers:write'], 'subscribers:read'));
    assert.ok(!permits(['subscribers:read'], 'subscribers:write'));
    assert.ok(!permits([], 'subscribers:read'));
  });
});
