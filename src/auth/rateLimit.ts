// Per-key request limits (spec: 120/min on /mcp; REST 600/min), through rate-limiter-flexible.
// Where the counts live decides who shares a budget: memory (one process), PostgreSQL (every instance
// on the database, one upsert per request) or Redis (every instance, the fastest shared store).
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { DbHandle } from '../db/client.ts';

export type LimitStore =
  { kind: 'memory' } | { kind: 'redis'; client: unknown } | { kind: 'postgres'; handle: Pick<DbHandle, 'executeSql'> };

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
}

export class KeyRateLimiter {
  private readonly limiter: RateLimiterAbstract;
  constructor(
    readonly name: string,
    readonly perMinute: number,
    store: LimitStore = { kind: 'memory' },
  ) {
    const opts = { keyPrefix: `mailgrove_${name}`, points: Math.max(perMinute, 1), duration: 60 };
    this.limiter =
      store.kind === 'redis'
        ? new RateLimiterRedis({ ...opts, storeClient: store.client, useRedisPackage: false })
        : store.kind === 'postgres'
          ? new RateLimiterPostgres({
              ...opts,
              // the table comes with the migrations; queries go through the app's own pool
              tableName: 'rate_limits',
              tableCreated: true,
              storeType: 'client',
              storeClient: {
                query: (q: { text: string; values?: unknown[] }) => store.handle.executeSql(q.text, q.values),
              },
            })
          : new RateLimiterMemory(opts);
  }

  async consume(key: string): Promise<LimitResult> {
    try {
      const r = await this.limiter.consume(key);
      return this.result(true, r);
    } catch (err) {
      if (err instanceof RateLimiterRes) return this.result(false, err);
      throw err; // the store itself failed
    }
  }

  private result(allowed: boolean, r: RateLimiterRes): LimitResult {
    const resetSeconds = Math.max(1, Math.ceil(r.msBeforeNext / 1000));
    return {
      allowed,
      limit: this.perMinute,
      remaining: Math.max(0, r.remainingPoints),
      retryAfter: resetSeconds,
      resetSeconds,
    };
  }
}
