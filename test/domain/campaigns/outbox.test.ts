// The outbox list: newest first, one account's mail only, and a search over recipient, sender and subject
// whose words must all match somewhere, with the user's % and _ taken literally.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as outbox from '../../../src/domain/campaigns/outbox.ts';
import { Validation } from '../../../src/domain/errors.ts';
import { migratedDb } from '../../support/db.ts';
import { newAccount } from '../../support/domain.ts';

const { db } = await migratedDb();
const ours = await newAccount(db, 'Ours');
const theirs = await newAccount(db, 'Theirs');

const captured = (account_id: string, to_addr: string, subject: string, from_addr = 'news@acme.test') =>
  db
    .insertInto('outbox')
    .values({ account_id, message_id: `${crypto.randomUUID()}@acme.test`, from_addr, to_addr, subject, headers: '{}' })
    .execute();

await captured(ours, 'ana@example.com', 'Winter teas are here');
await captured(ours, 'bo@example.com', '[Test] Winter teas are here');
await captured(ours, 'cy@example.org', 'Your 50% off code', 'shop@acme.test');
await captured(theirs, 'ana@example.com', 'Winter teas of another account');

const subjects = async (query: Record<string, unknown>) =>
  (await outbox.list(db, ours, query)).items.map((m) => m.subject).sort();

test('without a search: every message of the account, none of another', async () => {
  const page = await outbox.list(db, ours, {});
  assert.equal(page.total, 3);
  assert.ok(page.items.every((m) => m.subject !== 'Winter teas of another account'));
});

test('a search matches the recipient, the sender or the subject, case-insensitively; every word must match', async () => {
  assert.deepEqual(await subjects({ search: 'ANA@' }), ['Winter teas are here']);
  assert.deepEqual(await subjects({ search: 'shop@' }), ['Your 50% off code']);
  assert.deepEqual(await subjects({ search: 'winter' }), ['Winter teas are here', '[Test] Winter teas are here']);
  assert.deepEqual(await subjects({ search: '[test] winter' }), ['[Test] Winter teas are here']);
  assert.deepEqual(await subjects({ search: 'winter example.org' }), []);
  const counted = await outbox.list(db, ours, { search: 'winter', per_page: 1 });
  assert.equal(counted.total, 2, 'the total counts the matches, not the page');
});

test('% and _ are literal, not wildcards; an over-long search is refused', async () => {
  assert.deepEqual(await subjects({ search: '50%' }), ['Your 50% off code']);
  assert.deepEqual(await subjects({ search: '%' }), ['Your 50% off code']);
  assert.deepEqual(await subjects({ search: '_' }), []);
  await assert.rejects(outbox.list(db, ours, { search: 'x'.repeat(256) }), Validation);
});
