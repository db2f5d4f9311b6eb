// An in-process cache of reads, invalidated wholesale by the database's change clock (db/changeClock.ts):
// an entry is served only while no write has completed since the read that produced it started. It pays
// off on read-mostly traffic (GET /subscribers/{id} polled by integrations, a segment's count asked by ten
// dashboards) and costs nothing otherwise: any write empties it. Values are frozen, because callers share
// them. Concurrent reads of one key share one load when no write has completed since that load started:
// its answer is then as fresh as a cached one would be.
import { changeClockOf, type ChangeClock } from './changeClock.ts';
import type { Db } from './client.ts';

export interface ReadCacheOptions {
  maxEntries?: number;
  /** also forget an entry this long after its read started (reads whose answer moves with the time) */
  maxAgeMs?: number;
}

export class ReadCache<V extends object> {
  private entries = new Map<string, { value: V; at: number }>();
  private loading = new Map<string, Promise<V | undefined>>();
  private epoch = -1;
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;

  constructor(
    private readonly clock: ChangeClock,
    options: ReadCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.maxAgeMs = options.maxAgeMs ?? Infinity;
  }

  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (!this.clock.reliable) return load();
    const started = this.clock.now;
    const at = Date.now();
    if (this.epoch !== started) {
      this.entries.clear();
      this.loading.clear();
      this.epoch = started;
    } else {
      const hit = this.entries.get(key);
      if (hit && at - hit.at < this.maxAgeMs) return hit.value;
      const pending = this.loading.get(key);
      if (pending) return pending;
    }
    const pending = this.load(key, load, started, at);
    this.loading.set(key, pending);
    return pending;
  }

  /** The clock's time now: give it to keep() for a value read from here on. */
  get now(): number {
    return this.clock.now;
  }

  /** The value kept for `key`, if no write has completed since the read that produced it started. */
  peek(key: string): V | undefined {
    if (!this.clock.reliable || this.epoch !== this.clock.now) return undefined;
    const hit = this.entries.get(key);
    return hit && Date.now() - hit.at < this.maxAgeMs ? hit.value : undefined;
  }

  /** Keeps `value`, produced by a read that started at clock time `started`, if no write has completed since. */
  keep(key: string, value: V, started: number): void {
    if (!this.clock.reliable || this.clock.now !== started) return;
    if (this.epoch !== started) {
      this.entries.clear();
      this.loading.clear();
      this.epoch = started;
    }
    this.store(key, value, Date.now());
  }

  private store(key: string, value: V, at: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value: deepFreeze(value), at });
  }

  private async load(key: string, load: () => Promise<V | undefined>, started: number, at: number) {
    try {
      const value = await load();
      // a write that completed while we read may or may not be in `value`: keep it only if none did
      if (value && this.clock.reliable && this.clock.now === started && this.epoch === started)
        this.store(key, value, at);
      return value;
    } finally {
      if (this.epoch === started) this.loading.delete(key);
    }
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

/**
 * The named cache of a top-level Db; undefined inside a transaction, whose reads must see its own writes.
 * The options apply when the cache is first made.
 */
export function readCacheOf<V extends object>(
  db: Db,
  name: string,
  options?: ReadCacheOptions,
): ReadCache<V> | undefined {
  const clock = changeClockOf(db);
  if (!clock) return undefined;
  let byName = caches.get(clock);
  if (!byName) caches.set(clock, (byName = new Map()));
  let cache = byName.get(name);
  if (!cache) byName.set(name, (cache = new ReadCache<object>(clock, options)));
  return cache as ReadCache<V>;
}

/**
 * `load()` through the named cache when there is one (a top-level Db whose clock is reliable), else
 * straight. For reads whose answer is not an object (a count), wrap it.
 */
export async function cachedRead<V extends object>(
  db: Db,
  name: string,
  key: string,
  load: () => Promise<V>,
  options?: ReadCacheOptions,
): Promise<V> {
  const cache = readCacheOf<V>(db, name, options);
  return cache ? ((await cache.get(key, load)) as V) : load();
}
