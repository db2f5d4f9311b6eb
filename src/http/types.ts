// Fastify type extensions shared by every face: the app's db/config/queue/transport, a route's required scope,
// the caller's key.
import type { LimitStore } from '../auth/rateLimit.ts';
import type { DbHandle, Db } from '../db/client.ts';
import type { Config } from '../config.ts';
import type { KeyContext } from '../domain/accounts/apiKeys.ts';
import type { Scope } from '../domain/accounts/scopes.ts';
import type { Queue } from '../jobs/queue.ts';
import type { MailTransport } from '../mail/transport.ts';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    dbHandle: DbHandle;
    config: Config;
    queue: Queue;
    transport: MailTransport;
    /** where rate-limit counts live (shared by instances unless memory) */
    limitStore: LimitStore;
  }
  interface FastifyContextConfig {
    /** the scope a REST route needs; undefined = any valid key */
    scope?: Scope;
    /** set on routes that take no API key (health) */
    public?: boolean;
    /** 'replace': refused characters in the input become U+FFFD instead of a 400 (providers' hooks) */
    textRule?: 'replace';
  }
  interface FastifyRequest {
    key: KeyContext;
  }
}
export {};
