// An account's settings: the time zone must be one the runtime knows, since schedules, warm-up days and
// reports are computed in it; UTC stays a valid choice after any other.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Validation } from '../../../src/domain/errors.ts';
import { migratedDb } from '../../support/db.ts';
import { newAccount } from '../../support/domain.ts';

const { db } = await migratedDb();

test('the time zone is an IANA name; an unknown one is a field error and nothing changes', async () => {
  const id = await newAccount(db, 'Zones');
  assert.equal((await accounts.update(db, id, { timezone: 'Europe/Berlin' })).timezone, 'Europe/Berlin');
  assert.equal((await accounts.update(db, id, { timezone: 'UTC' })).timezone, 'UTC');
  for (const timezone of ['Mars/Olympus_Mons', 'Europe/Berlin; drop table accounts', '', 'x'.repeat(65)]) {
    const refused = await accounts.update(db, id, { timezone }).catch((e: unknown) => e);
    assert.ok(refused instanceof Validation, timezone);
    assert.ok(refused.fields.timezone, `the answer names the field for ${JSON.stringify(timezone)}`);
  }
  const row = await db.selectFrom('accounts').select('timezone').where('id', '=', id).executeTakeFirstOrThrow();
  assert.equal(row.timezone, 'UTC');
});
