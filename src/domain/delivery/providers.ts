// Which mail provider receives a recipient's mail, and how fast each provider may be sent to. Providers
// limit senders per provider, not per domain (every Google Workspace domain lands on the same servers), so
// the send workers group recipients by provider: the big ones by domain (mail/providers.ts), other
// domains by their MX host, looked up once per domain and cached. A lookup that fails or times out makes
// the domain its own provider.
import { knownProviderOf, providerOfMxHost } from '../../mail/providers.ts';

export type MxResolver = (domain: string) => Promise<{ exchange: string; priority: number }[]>;

export interface ProviderLookupOptions {
  /** the product's resolver (mail/dns.ts); tests may hand in a function */
  resolveMx: MxResolver;
  /** how long an answer is kept (default one hour) */
  ttlMs?: number;
  /** a lookup that takes longer makes the domain its own provider (default 3 s) */
  timeoutMs?: number;
}

/** Domain → provider with a cache; one lookup per domain at a time, however many ask. */
export class ProviderLookup {
  private readonly cache = new Map<string, { provider: string; expires: number }>();
  private readonly pending = new Map<string, Promise<string>>();
  private readonly resolveMx: MxResolver;
  private readonly ttlMs: number;
  private readonly timeoutMs: number;

  constructor(opts: ProviderLookupOptions) {
    this.ttlMs = opts.ttlMs ?? 3_600_000;
    this.timeoutMs = opts.timeoutMs ?? 3_000;
    this.resolveMx = opts.resolveMx;
  }

  /** The provider when it is known without a lookup (a big provider's domain, or cached); undefined otherwise. */
  cached(domain: string): string | undefined {
    const known = knownProviderOf(domain);
    if (known) return known;
    const hit = this.cache.get(domain);
    return hit && hit.expires > Date.now() ? hit.provider : undefined;
  }

  async providerOf(domain: string): Promise<string> {
    const d = domain.trim().toLowerCase().replace(/\.$/, '');
    const hit = this.cached(d);
    if (hit) return hit;
    let p = this.pending.get(d);
    if (!p) {
      p = this.lookup(d).finally(() => this.pending.delete(d));
      this.pending.set(d, p);
    }
    return p;
  }

  private async lookup(domain: string): Promise<string> {
    let provider = domain;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('MX lookup timed out')), this.timeoutMs);
      });
      const mx = await Promise.race([this.resolveMx(domain), timeout]);
      const best = [...mx].sort((a, b) => a.priority - b.priority)[0];
      if (best?.exchange) provider = providerOfMxHost(best.exchange);
    } catch {
      // no MX, no answer or too slow: the domain is its own provider
    } finally {
      clearTimeout(timer);
    }
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(domain, { provider, expires: Date.now() + this.ttlMs });
    return provider;
  }
}

// ---- limits -------------------------------------------------------------------------------------------

export interface ProviderLimit {
  /** messages to this provider in flight at once per instance; 0 = only SEND_CONCURRENCY limits them */
  concurrency: number;
  /** messages per second to this provider per instance; 0 = unlimited */
  per_second: number;
}

/** The limits when PROVIDER_LIMITS does not say otherwise; "*" is every other provider. */
export const DEFAULT_PROVIDER_LIMITS: Record<string, ProviderLimit> = {
  google: { concurrency: 10, per_second: 100 },
  microsoft: { concurrency: 10, per_second: 50 },
  yahoo: { concurrency: 5, per_second: 30 },
  apple: { concurrency: 5, per_second: 30 },
  '*': { concurrency: 0, per_second: 0 },
};

/**
 * Reads PROVIDER_LIMITS: JSON `{"google": {"concurrency": 5, "per_second": 20}, "*": {…}}`, merged over the
 * defaults key by key (a provider given with only one of the two keeps the default of the other). Throws
 * with a message naming the problem; config loading turns that into a startup error.
 */
export function parseProviderLimits(text: string | undefined): Record<string, ProviderLimit> {
  const limits: Record<string, ProviderLimit> = {};
  for (const [k, v] of Object.entries(DEFAULT_PROVIDER_LIMITS)) limits[k] = { ...v };
  if (!text || !text.trim()) return limits;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('PROVIDER_LIMITS must be JSON: {"<provider>": {"concurrency": n, "per_second": n}, "*": {...}}');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new Error('PROVIDER_LIMITS must be a JSON object of provider → limits');
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!value || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`PROVIDER_LIMITS.${key} must be an object with concurrency and/or per_second`);
    const base = limits[key] ?? { ...limits['*']! };
    for (const [field, n] of Object.entries(value as Record<string, unknown>)) {
      if (field !== 'concurrency' && field !== 'per_second')
        throw new Error(`PROVIDER_LIMITS.${key}.${field} is not a limit (concurrency, per_second)`);
      if (typeof n !== 'number' || !Number.isFinite(n) || n < 0)
        throw new Error(`PROVIDER_LIMITS.${key}.${field} must be a number ≥ 0`);
      base[field] = field === 'concurrency' ? Math.floor(n) : n;
    }
    limits[key.toLowerCase()] = base;
  }
  return limits;
}

/**
 * One instance's gate per provider: how many of its messages are in flight, and a token bucket for its
 * rate. The send lanes ask `ready(p)` before handing a message for provider p and `wait()` when no
 * provider of their batch is ready; `take`/`done` count a message in and out.
 */
export class ProviderGates {
  private readonly inFlight = new Map<string, number>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private waiters: (() => void)[] = [];

  constructor(private readonly limits: Record<string, ProviderLimit>) {}

  limitOf(provider: string): ProviderLimit {
    return this.limits[provider] ?? this.limits['*'] ?? { concurrency: 0, per_second: 0 };
  }

  /** 0 when a message for the provider may go now, else how many ms until its rate allows one. */
  ready(provider: string): number | false {
    const limit = this.limitOf(provider);
    if (limit.concurrency > 0 && (this.inFlight.get(provider) ?? 0) >= limit.concurrency) return false;
    if (limit.per_second <= 0) return 0;
    const b = this.bucket(provider, limit.per_second);
    return b.tokens >= 1 ? 0 : Math.ceil(((1 - b.tokens) / limit.per_second) * 1000);
  }

  take(provider: string): void {
    this.inFlight.set(provider, (this.inFlight.get(provider) ?? 0) + 1);
    const limit = this.limitOf(provider);
    if (limit.per_second > 0) this.bucket(provider, limit.per_second).tokens -= 1;
  }

  done(provider: string): void {
    this.inFlight.set(provider, (this.inFlight.get(provider) ?? 1) - 1);
    const waiting = this.waiters;
    if (waiting.length > 0) {
      this.waiters = [];
      for (const w of waiting) w();
    }
  }

  /** Resolves when a message is done, or after `ms` (a rate's next token). */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  // capacity of one second's worth: an idle provider never saves up more than a second's burst
  private bucket(provider: string, perSecond: number) {
    let b = this.buckets.get(provider);
    const now = Date.now();
    if (!b) this.buckets.set(provider, (b = { tokens: Math.max(1, perSecond), at: now }));
    else {
      b.tokens = Math.min(Math.max(1, perSecond), b.tokens + ((now - b.at) / 1000) * perSecond);
      b.at = now;
    }
    return b;
  }
}
