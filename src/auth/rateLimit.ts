// Per-key request limits (spec: 120/min on /mcp; REST 600/min). Where the counts live decides who shares
// a budget: memory (one process) or Redis (every instance), through rate-limiter-flexible, or PostgreSQL
// (every instance on the database), through our own counter below.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { DbHandle } from '../db/client.ts';
import { addPoints } from '../domain/accounts/rateLimitQueries.ts';

export type LimitStore =
  | { kind: 'memory' }
  | { kind: 'redis'; client: unknown }
  | { kind: 'postgres'; handle: Pick<DbHandle, 'executeGateSql'> };

/**
 * RATE_LIMIT_STORE, or by default: Redis when REDIS_URL is set, else PostgreSQL when that is the
 * database (so several instances share one budget without Redis), else memory (PGlite: one process).
 */
export function limitStore(
  choice: 'auto' | 'memory' | 'postgres' | 'redis',
  handle: DbHandle,
  redis: unknown,
): LimitStore {
  if (choice === 'memory') return { kind: 'memory' };
  if (redis && (choice === 'auto' || choice === 'redis')) return { kind: 'redis', client: redis };
  if (choice === 'redis') throw new Error('RATE_LIMIT_STORE=redis needs REDIS_URL');
  if (handle.kind === 'postgres') return { kind: 'postgres', handle };
  if (choice === 'postgres') throw new Error('RATE_LIMIT_STORE=postgres needs DATABASE_URL (PostgreSQL)');
  return { kind: 'memory' };
}

export interface LimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** whole seconds until a request is allowed again (at least 1 when refused) */
  retryAfter: number;
  resetSeconds: number;
  /** the API key counted is revoked (known only to the PostgreSQL store of a limiter of API keys) */
  revoked?: boolean;
}

export class KeyRateLimiter {
  private readonly limiter: RateLimiterAbstract | PostgresCounter;
  /**
   * `points` requests per window (a minute unless `windowSeconds` says otherwise). `ofApiKeys`: the keys
   * counted are API keys' ids, and the PostgreSQL store reads along whether each is revoked
   * (rateLimitQueries.addPoints)
   */
  constructor(
    readonly name: string,
    readonly points: number,
    store: LimitStore = { kind: 'memory' },
    { ofApiKeys = false, windowSeconds = 60 }: { ofApiKeys?: boolean; windowSeconds?: number } = {},
  ) {
    const opts = { keyPrefix: `mailgrove_${name}`, points: Math.max(points, 1), duration: windowSeconds };
    this.limiter =
      store.kind === 'redis'
        ? new RateLimiterRedis({ ...opts, storeClient: store.client, useRedisPackage: false })
        : store.kind === 'postgres'
          ? new PostgresCounter(store.handle, opts.keyPrefix, opts.points, opts.duration * 1000, ofApiKeys)
          : new RateLimiterMemory(opts);
  }

  async consume(key: string): Promise<LimitResult> {
    if (this.limiter instanceof PostgresCounter) {
      const r = await this.limiter.consume(key);
      return { ...this.result(r.remainingPoints >= 0, r), revoked: r.revoked };
    }
    try {
      const r = await this.limiter.consume(key);
      return this.result(true, r);
    } catch (err) {
      if (err instanceof RateLimiterRes) return this.result(false, err);
      throw err; // the store itself failed
    }
  }

  private result(allowed: boolean, r: Pick<RateLimiterRes, 'msBeforeNext' | 'remainingPoints'>): LimitResult {
    const resetSeconds = Math.max(1, Math.ceil(r.msBeforeNext / 1000));
    return {
      allowed,
      limit: this.points,
      remaining: Math.max(0, r.remainingPoints),
      retryAfter: resetSeconds,
      resetSeconds,
    };
  }
}

/**
 * Counts in PostgreSQL (rate_limits), every instance on the database sharing each key's count. The
 * requests of one key that arrive while its statement is in flight wait and go together in the next one,
 * which adds their number at once: one statement in flight per key and process, so concurrent requests
 * of a key neither queue on its row's lock nor pay a round trip each (one key's requests were capped near
 * 600 a second by that queue). Exact still: the count after the statement numbers the batch's requests,
 * in arrival order, and each is allowed when its number is within the limit. Refused requests count, as
 * in rate-limiter-flexible's stores.
 */
type Counted = { remainingPoints: number; msBeforeNext: number; revoked: boolean };
type Waiter = { resolve(r: Counted): void; reject(err: unknown): void };

class PostgresCounter {
  private readonly pending = new Map<string, Waiter[]>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly handle: Pick<DbHandle, 'executeGateSql'>,
    private readonly prefix: string,
    private readonly points: number,
    private readonly durationMs: number,
    private readonly ofApiKeys: boolean,
  ) {}

  /** remainingPoints < 0: refused */
  consume(key: string): Promise<Counted> {
    const k = `${this.prefix}:${key}`;
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(k);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(k, [{ resolve, reject }]);
      if (!this.busy.has(k)) void this.flush(k, key);
    });
  }

  private async flush(k: string, key: string): Promise<void> {
    this.busy.add(k);
    try {
      for (let batch = this.take(k); batch.length > 0; batch = this.take(k)) {
        let r: Awaited<ReturnType<typeof addPoints>>;
        try {
          r = await addPoints(this.handle, k, batch.length, this.durationMs, this.ofApiKeys ? key : null);
        } catch (err) {
          // the store failed: every request of this batch fails with it
          for (const w of batch) w.reject(err);
          continue;
        }
        const first = r.points - batch.length + 1;
        const msBeforeNext = Math.max(0, r.expire - r.now);
        batch.forEach((w, i) =>
          w.resolve({ remainingPoints: this.points - (first + i), msBeforeNext, revoked: r.revoked }),
        );
      }
    } finally {
      this.busy.delete(k);
    }
  }

  private take(k: string): Waiter[] {
    const batch = this.pending.get(k) ?? [];
    this.pending.delete(k);
    return batch;
  }
}
