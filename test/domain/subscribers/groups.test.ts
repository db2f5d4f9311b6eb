// "Group" in the domain: names unique per account (case-insensitive, also on rename), counts that
// follow memberships and statuses, membership events in the same transaction, and tenant scoping.
// Also the suppression hash forget_subscriber leaves behind (domain/suppressions.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Conflict, NotFound, Validation } from '../../../src/domain/errors.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import * as suppressions from '../../../src/domain/subscribers/suppressions.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const MISSING = '00000000-0000-4000-8000-000000000000';
const newAccount = async () => (await accounts.create(db, { name: 'Groups' }, 1000)).id;

describe('groups domain', () => {
  test('names are unique per account case-insensitively, on create and on rename; blank is a Validation', async () => {
    const acc = await newAccount();
    const a = await groups.create(db, acc, { name: 'Alpha' });
    await groups.create(db, acc, { name: 'Beta' });
    await assert.rejects(groups.create(db, acc, { name: 'ALPHA' }), Conflict);
    await assert.rejects(groups.update(db, acc, a.id, { name: 'beta' }), Conflict);
    await assert.rejects(
      groups.create(db, acc, { name: ' ' }),
      (e: unknown) => e instanceof Validation && e.message === 'name: Name is required',
    );
    await groups.create(db, await newAccount(), { name: 'Alpha' }); // another tenant may use it
  });

  test('subscriber_count counts all members, active_count only active ones; list pages past the first', async () => {
    const acc = await newAccount();
    const g = await groups.create(db, acc, { name: 'Counted' });
    for (let i = 0; i < 5; i++) await subscribers.create(db, acc, { email: `s${i}@example.com`, group_ids: [g.id] });
    const s0 = (await subscribers.list(db, acc, { search: 's0@' })).items[0]!;
    await subscribers.update(db, acc, s0.id, { status: 'unsubscribed' });
    assert.deepEqual(
      [(await groups.get(db, acc, g.id)).subscriber_count, (await groups.get(db, acc, g.id)).active_count],
      [5, 4],
    );
    for (let i = 0; i < 30; i++) await groups.create(db, acc, { name: `G${String(i).padStart(2, '0')}` });
    const p2 = await groups.list(db, acc, { page: 2, per_page: 25 });
    assert.equal(p2.total, 31);
    assert.equal(p2.items.length, 6);
    assert.equal(p2.items.at(-1)!.name, 'G29');
  });

  test('assign/unassign write subscriber.added_to_group / removed_from_group with {subscriber:{id,email}, group:{id,name}}', async () => {
    const acc = await newAccount();
    const g = await groups.create(db, acc, { name: 'Evented' });
    const sub = await subscribers.create(db, acc, { email: 'ev@example.com' });
    await groups.assign(db, acc, g.id, sub.id);
    await groups.unassign(db, acc, g.id, sub.id);
    const events = await db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('subscriber_id', '=', sub.id)
      .orderBy('seq')
      .execute();
    const payload = { subscriber: { id: sub.id, email: 'ev@example.com' }, group: { id: g.id, name: 'Evented' } };
    assert.deepEqual(events.slice(1), [
      { type: 'subscriber.added_to_group', data: payload },
      { type: 'subscriber.removed_from_group', data: payload },
    ]);
  });

  test("another account's group or subscriber is NotFound everywhere, and nothing changes", async () => {
    const mine = await newAccount();
    const theirs = await newAccount();
    const g = await groups.create(db, theirs, { name: 'Theirs' });
    const sub = await subscribers.create(db, mine, { email: 'me@example.com' });
    await assert.rejects(groups.get(db, mine, g.id), NotFound);
    await assert.rejects(groups.update(db, mine, g.id, { name: 'Mine now' }), NotFound);
    await assert.rejects(groups.remove(db, mine, g.id), NotFound);
    await assert.rejects(groups.members(db, mine, g.id, {}), NotFound);
    await assert.rejects(groups.assign(db, mine, g.id, sub.id), NotFound);
    await assert.rejects(
      groups.assign(db, theirs, g.id, sub.id),
      (e: unknown) => e instanceof NotFound && e.message === 'Subscriber not found',
    );
    await assert.rejects(
      groups.get(db, mine, MISSING),
      (e: unknown) => e instanceof NotFound && e.message === 'Group not found',
    );
    assert.equal((await groups.get(db, theirs, g.id)).name, 'Theirs');
  });
});

describe('suppressions (forget_subscriber leaves only a salted hash)', () => {
  test('the hash ignores case and surrounding spaces, depends on the secret, and does not contain the address', () => {
    const h = suppressions.hashEmail('s1', 'Ada@Example.com');
    assert.equal(h, suppressions.hashEmail('s1', '  ada@example.COM '));
    assert.notEqual(h, suppressions.hashEmail('s2', 'ada@example.com'));
    assert.match(h, /^[0-9a-f]{64}$/);
  });

  test('suppressedAmong answers a whole batch with one query, per account', async () => {
    const acc = await newAccount();
    await suppressions.suppress(db, 'sec', acc, 'gone@example.com', 'forgotten');
    await suppressions.suppress(db, 'sec', acc, 'GONE@example.com', 'forgotten'); // idempotent
    const hit = await suppressions.suppressedAmong(db, 'sec', acc, ['kept@example.com', 'Gone@Example.com']);
    assert.deepEqual([...hit], ['gone@example.com']);
    assert.equal(await suppressions.isSuppressed(db, 'sec', await newAccount(), 'gone@example.com'), false);
  });
});
