// An in-process cache of reads, invalidated wholesale by the database's change clock (db/changeClock.ts):
// an entry is served only while no write has completed since the read that produced it started. It pays
// off on read-mostly traffic (GET /subscribers/{id} polled by integrations) and costs nothing otherwise: any
// write empties it. Values are frozen, because callers share them.
import { changeClockOf, type ChangeClock } from './changeClock.ts';
import type { Db } from './client.ts';

export class ReadCache<V extends object> {
  private entries = new Map<string, V>();
  private epoch = -1;

  constructor(
    private readonly clock: ChangeClock,
    private readonly maxEntries = 10_000,
  ) {}

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.clock.reliable) return load();
    const started = this.clock.now;
    if (this.epoch !== started) {
      this.entries.clear();
      this.epoch = started;
    } else {
      const hit = this.entries.get(key);
      if (hit) return hit;
    }
    const value = await load();
    // a write that completed while we read may or may not be in `value`: keep it only if none did
    if (value && this.clock.reliable && this.clock.now === started && this.epoch === started) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, deepFreeze(value));
    }
    return value;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const caches = new WeakMap<ChangeClock, Map<string, ReadCache<object>>>();

/** The named cache of a top-level Db; undefined inside a transaction, whose reads must see its own writes. */
export function readCacheOf<V extends object>(db: Db, name: string): ReadCache<V> | undefined {
  const clock = changeClockOf(db);
  if (!clock) return undefined;
  let byName = caches.get(clock);
  if (!byName) caches.set(clock, (byName = new Map()));
  let cache = byName.get(name);
  if (!cache) byName.set(name, (cache = new ReadCache<object>(clock)));
  return cache as ReadCache<V>;
}
