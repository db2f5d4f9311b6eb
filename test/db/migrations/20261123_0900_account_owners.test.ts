// The account-owners migration: accounts made before without an owner email get their service owner,
// keys without a user go to their account's first owner, and api_keys.user_id becomes required.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrate } from '../../../src/db/migrate.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as users from '../../../src/domain/accounts/users.ts';
import { migratedDb } from '../../support/db.ts';

const MIGRATION = '20261123_0900_account_owners';

describe('Migration › every account has an owner, every API key a user', () => {
  test('legacy rows: an ownerless account and keys with no user are backfilled, then user_id is not null', async (t) => {
    const { db } = await migratedDb(t);
    // the shape the tables had before: user_id nullable, accounts without an owner membership
    await sql`alter table api_keys alter column user_id drop not null`.execute(db);
    await db
      .deleteFrom('schema_migrations' as any)
      .where('name', '=', MIGRATION)
      .execute();
    const ownerless = await db
      .insertInto('accounts')
      .values({ name: 'Legacy', subscriber_limit: 10 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const owned = await accounts.create(db, { name: 'Owned', owner_email: 'ada@example.com' }, 10);
    for (const [accountId, hash] of [
      [ownerless.id, 'a'.repeat(64)],
      [owned.id, 'b'.repeat(64)],
    ] as const)
      await db
        .insertInto('api_keys')
        .values({ account_id: accountId, user_id: null as any, name: 'old', scopes: ['*'], key_hash: hash, hint: 'x' })
        .execute();

    assert.deepEqual(await migrate(db), [MIGRATION]);

    const service = await db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['u.id', 'u.idp_user_id', 'u.email', 'u.password_hash', 'm.role'])
      .where('m.account_id', '=', ownerless.id)
      .execute();
    assert.deepEqual(service, [
      {
        id: service[0]!.id,
        idp_user_id: `service|${ownerless.id}`,
        email: `owner+${ownerless.id}@mailgrove.invalid`,
        password_hash: null,
        role: 'owner',
      },
    ]);
    const keys = await db.selectFrom('api_keys').select(['account_id', 'user_id']).orderBy('key_hash').execute();
    assert.deepEqual(keys, [
      { account_id: ownerless.id, user_id: service[0]!.id },
      { account_id: owned.id, user_id: owned.owner.id },
    ]);
    await assert.rejects(
      db
        .insertInto('api_keys')
        .values({ account_id: owned.id, user_id: null as any, name: 'n', scopes: ['*'], key_hash: 'c', hint: 'x' })
        .execute(),
      /null value in column "user_id"/,
    );
  });

  test('service owners do not count as people: the first dashboard visit still offers to create the owner', async (t) => {
    const { db } = await migratedDb(t);
    const account = await accounts.create(db, { name: 'Made by an operator' }, 10);
    assert.equal(account.owner.idp_user_id, `service|${account.id}`);
    assert.equal(await users.hasUsers(db), false);
  });
});
