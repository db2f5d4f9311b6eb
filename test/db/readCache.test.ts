// The read cache's contract (db/readCache.ts, db/changeClock.ts): a cached value is served only while no
// write has completed since the read that produced it started; the clock tells writes from reads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ChangeClock } from '../../src/db/changeClock.ts';
import { ReadCache } from '../../src/db/readCache.ts';

const counting = () => {
  let loads = 0;
  const load = async () => ({ n: ++loads });
  return { load, loads: () => loads };
};

describe('change clock', () => {
  test('reads, locks and empty writes do not tick; writes that changed rows, unknown counts and COMMIT do', () => {
    const clock = new ChangeClock(true);
    const ticks = (text: string, rows?: number | null) => {
      const before = clock.now;
      clock.noteStatement(text, rows);
      return clock.now - before;
    };
    assert.equal(ticks('select * from subscribers where id = $1', 1), 0);
    assert.equal(ticks(' SELECT 1 for update', 1), 0);
    assert.equal(ticks('begin', null), 0);
    assert.equal(ticks('rollback', null), 0);
    assert.equal(ticks('update subscribers set status = $1 where id = $2', 0), 0);
    assert.equal(ticks('update subscribers set status = $1 where id = $2', 1), 1);
    assert.equal(ticks('insert into subscriber_notes (content) values ($1)', undefined), 1);
    assert.equal(ticks('with gone as (delete from subscribers returning id) select count(*) from gone', 3), 1);
    assert.equal(ticks('commit', null), 1);
    assert.equal(ticks('COMMIT', 0), 1);
  });
});

describe('read cache', () => {
  test('serves the same frozen value until the clock ticks, then reads again', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock);
    const { load, loads } = counting();
    const first = await cache.get('k', load);
    assert.equal(await cache.get('k', load), first);
    assert.equal(loads(), 1);
    assert.ok(Object.isFrozen(first));
    clock.tick();
    assert.deepEqual(await cache.get('k', load), { n: 2 });
    assert.equal(loads(), 2);
  });

  test('a value read while a write completed is returned but not kept', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock);
    let loads = 0;
    const racing = async () => {
      loads++;
      clock.tick(); // a write commits while this read is in flight
      return { n: loads };
    };
    await cache.get('k', racing);
    await cache.get('k', racing);
    assert.equal(loads, 2);
  });

  test('an unreliable clock (change notifications down) bypasses the cache; coming back invalidates', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock);
    const { load, loads } = counting();
    await cache.get('k', load);
    clock.setReliable(false);
    await cache.get('k', load);
    await cache.get('k', load);
    assert.equal(loads(), 3);
    clock.setReliable(true);
    await cache.get('k', load);
    assert.equal(loads(), 4);
  });

  test('misses (undefined) are not cached; keys are separate; the oldest entry goes past the bound', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock, { maxEntries: 2 });
    let misses = 0;
    await cache.get('missing', async () => void misses++);
    await cache.get('missing', async () => void misses++);
    assert.equal(misses, 2);
    const { load, loads } = counting();
    await cache.get('a', load);
    await cache.get('b', load);
    await cache.get('c', load); // evicts a
    await cache.get('b', load);
    assert.equal(loads(), 3);
    await cache.get('a', load);
    assert.equal(loads(), 4);
  });

  test('concurrent reads of one key share one load; a write during it makes the next reader load again', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock);
    let loads = 0;
    let finish!: () => void;
    const slow = async () => {
      loads++;
      await new Promise<void>((r) => (finish = r));
      return { n: loads };
    };
    const a = cache.get('k', slow);
    const b = cache.get('k', slow);
    await Promise.resolve();
    finish();
    assert.deepEqual([await a, await b], [{ n: 1 }, { n: 1 }]);
    assert.equal(loads, 1);

    clock.tick();
    const c = cache.get('k', slow);
    clock.tick(); // a write completes while c loads: a reader arriving now must not take c's answer
    const d = cache.get('k', slow);
    await Promise.resolve();
    finish(); // d's load
    assert.equal(loads, 3);
  });

  test('maxAgeMs: an entry is read again once it is that old, without any write', async () => {
    const clock = new ChangeClock(true);
    const cache = new ReadCache<{ n: number }>(clock, { maxAgeMs: 30 });
    const { load, loads } = counting();
    await cache.get('k', load);
    await cache.get('k', load);
    assert.equal(loads(), 1);
    await new Promise((r) => setTimeout(r, 40));
    assert.deepEqual(await cache.get('k', load), { n: 2 });
  });
});
