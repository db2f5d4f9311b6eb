// Per-key request limits (spec: 120/min on /mcp; REST 600/min), through rate-limiter-flexible.
// Memory store for one process; Redis (REDIS_URL) when several instances must share one budget.
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

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
    redis?: unknown,
  ) {
    const opts = { keyPrefix: `mailgrove_${name}`, points: Math.max(perMinute, 1), duration: 60 };
    this.limiter = redis
      ? new RateLimiterRedis({ ...opts, storeClient: redis, useRedisPackage: false })
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
