// The one gate for API keys in front of REST and MCP: resolve the bearer key, spend one request of its
// per-minute budget, show the budget in RateLimit-* headers and add Retry-After to a refusal. The faces
// differ only in how they word a 401 and a 429, so they pass those in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { authenticateHeader, forgetRevokedKey, type AuthFailure, type KeyContext } from '../auth/bearer.ts';
import type { KeyRateLimiter, LimitResult } from '../auth/rateLimit.ts';
import type { Db } from '../db/client.ts';

export interface KeyRefusals {
  /** sends the face's 401 */
  unauthorized(reply: FastifyReply, reason: AuthFailure): FastifyReply;
  /** the face's 429 body; the status, Retry-After and RateLimit-* headers are already set */
  rateLimited(limit: LimitResult): unknown;
}

/** The key of an admitted request, or undefined once the refusal has been sent. */
export type AdmitKey = (req: FastifyRequest, reply: FastifyReply) => Promise<KeyContext | undefined>;

export function keyGuard(db: Db, limiter: KeyRateLimiter, refusals: KeyRefusals): AdmitKey {
  return async (req, reply) => {
    const auth = await authenticateHeader(db, req.headers.authorization);
    if (typeof auth === 'string') {
      refusals.unauthorized(reply, auth);
      return undefined;
    }
    const limit = await limiter.consume(auth.keyId);
    if (limit.revoked) {
      // revoked on another instance, and its notice not heard here yet: refused all the same
      forgetRevokedKey(auth.keyId);
      refusals.unauthorized(reply, 'revoked');
      return undefined;
    }
    reply
      .header('RateLimit-Limit', limit.limit)
      .header('RateLimit-Remaining', limit.remaining)
      .header('RateLimit-Reset', limit.resetSeconds);
    req.key = auth; // for the request log, also when the budget is spent
    if (limit.allowed) return auth;
    reply.code(429).header('Retry-After', limit.retryAfter).send(refusals.rateLimited(limit));
    return undefined;
  };
}
