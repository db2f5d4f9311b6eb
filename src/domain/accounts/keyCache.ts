// Successful API-key lookups kept in memory for a short while, so an authenticated request costs no
// query for its key (the API bench: a GET made two round trips, the key and the subscriber; auth was half).
// Revocation stays immediate, as a key cache must: apiKeys.revoke drops the key from every cache
// in this process before it answers, and a key revoked anywhere else (another instance, the CLI on
// PostgreSQL, plain SQL) arrives as a notice from the database (a trigger on api_keys, heard by the
// process's change listener, db/notices.ts) a moment after it commits. While no notices can arrive —
// the listening connection is down, or PGlite, where nothing listens — the cache polls api_keys every
// second instead, and once they can again it polls once more for what it missed. Keys revoked in the
// last minutes stay on a deny list, so a lookup that raced a revocation cannot put the key back. When a
// poll fails, the cache empties and stays off until a poll succeeds. Expiry is checked on every hit;
// only successes are cached.
import type { Db } from '../../db/client.ts';
import { noticesOf, type Notices } from '../../db/notices.ts';
import type { KeyContext } from './keyContext.ts';
import { recentlyRevoked } from './keyQueries.ts';

const TTL_MS = 30_000;
const POLL_MS = 1000;
/** how long a revocation seen by a poll keeps the key on the deny list (covers clock skew between instances) */
const DENY_MS = 10 * 60_000;

interface Entry {
  ctx: KeyContext;
  expiresAt: number | null;
  until: number;
}

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly denied = new Map<string, number>();
  private healthy = false;
  private readonly timer: NodeJS.Timeout;
  private readonly notices: Notices | undefined;
  private readonly unsubscribe: () => void;

  constructor(private readonly db: Db) {
    caches.add(this);
    this.notices = noticesOf(db);
    // a change of the listener's state either way: read what may have been missed around it
    this.unsubscribe =
      this.notices?.subscribe((n) => (n.kind === 'key_revoked' ? this.deny(n.id) : void this.poll())) ?? (() => {});
    this.timer = setInterval(() => this.tick(), POLL_MS);
    this.timer.unref();
    void this.poll();
  }

  /** whether revocations made elsewhere arrive as notices, so no poll is needed */
  get notified(): boolean {
    return this.notices?.listening ?? false;
  }

  private tick(): void {
    const now = Date.now();
    for (const [id, until] of this.denied) if (until <= now) this.denied.delete(id);
    if (!this.notified || !this.healthy) void this.poll();
  }

  /** The cached key for this hash, 'expired' once its expiry has passed, or undefined (ask the database). */
  lookup(hash: string, now = Date.now()): KeyContext | 'expired' | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (!this.healthy || e.until <= now || this.denied.has(e.ctx.keyId)) {
      this.entries.delete(hash);
      return undefined;
    }
    if (e.expiresAt !== null && e.expiresAt <= now) return 'expired';
    return e.ctx;
  }

  store(hash: string, ctx: KeyContext, expiresAt: Date | null): void {
    if (!this.healthy || this.denied.has(ctx.keyId)) return;
    this.entries.set(hash, {
      ctx,
      expiresAt: expiresAt ? new Date(expiresAt).getTime() : null,
      until: Date.now() + TTL_MS,
    });
  }

  deny(keyId: string, now = Date.now()): void {
    this.denied.set(keyId, now + DENY_MS);
    for (const [hash, e] of this.entries) if (e.ctx.keyId === keyId) this.entries.delete(hash);
  }

  async poll(): Promise<void> {
    try {
      const revoked = await recentlyRevoked(this.db);
      const now = Date.now();
      for (const id of revoked) this.deny(id, now);
      this.healthy = true;
    } catch {
      this.healthy = false;
      this.entries.clear();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    caches.delete(this);
    this.entries.clear();
  }
}

const caches = new Set<KeyCache>();
const byDb = new WeakMap<Db, KeyCache>();

/** The cache of one database's keys (REST and MCP share it), started on first use. */
export function cacheFor(db: Db): KeyCache {
  let cache = byDb.get(db);
  if (!cache) {
    cache = new KeyCache(db);
    byDb.set(db, cache);
  }
  return cache;
}

/** Stops the poll of a database's cache (the app calls it on close). */
export function stopCache(db: Db): void {
  byDb.get(db)?.stop();
  byDb.delete(db);
}

/** how long a revocation waits for its own notice before it answers anyway */
const HEAR_MS = 500;

/**
 * Resolves `done` once this process hears the notice of the key's revocation (the database sends it to
 * every listener at once), at the latest after HEAR_MS, at once when no notices arrive (PGlite, the
 * listener down). Call it before the revocation, so the notice cannot come first; cancel it after.
 */
export function hearRevocation(db: Db, keyId: string): { done: Promise<void>; cancel(): void } {
  const notices = noticesOf(db);
  if (!notices?.listening) return { done: Promise.resolve(), cancel: () => {} };
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  const timer = setTimeout(() => finish(), HEAR_MS);
  const unsubscribe = notices.subscribe((n) => {
    if ((n.kind === 'key_revoked' && n.id === keyId) || n.kind === 'listening') finish();
  });
  const cancel = () => {
    clearTimeout(timer);
    unsubscribe();
    finish();
  };
  void done.then(cancel);
  return { done, cancel };
}

/** Called by apiKeys.revoke: the key stops working in this process before the revoke answers. */
export function denyEverywhere(keyId: string): void {
  for (const cache of caches) cache.deny(keyId);
}
