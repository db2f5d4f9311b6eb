// The mx verifier: an address is undeliverable when its domain has no mail exchanger (DNS MX).
// Each domain is looked up once per hour (cache), with a timeout; a lookup that cannot answer
// (timeout, server failure) passes the address rather than failing a row on a DNS hiccup.
import { createResolver, isNoRecord } from '../../../mail/dns.ts';
import type { Verifier } from './verifier.ts';

export type ResolveMx = (domain: string) => Promise<{ exchange: string; priority: number }[]>;

export interface MxOptions {
  /** the DNS lookup: the product's resolver (mail/dns.ts, DNS_SERVERS) from config, or a test's */
  resolveMx?: ResolveMx;
  timeoutMs?: number;
  cacheMs?: number;
  /** lookups in flight at once */
  concurrency?: number;
}

export function mxVerifier(opts: MxOptions = {}): Verifier {
  const resolveMx: ResolveMx = opts.resolveMx ?? createResolver([], opts.timeoutMs ?? 3000).resolveMx;
  const timeoutMs = opts.timeoutMs ?? 3000;
  const cacheMs = opts.cacheMs ?? 3_600_000;
  const cache = new Map<string, { reason: string | null; until: number }>();

  async function lookup(domain: string): Promise<string | null> {
    const hit = cache.get(domain);
    if (hit && hit.until > Date.now()) return hit.reason;
    let reason: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<never>(
        (_, reject) =>
          (timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'ETIMEOUT' })), timeoutMs)),
      );
      const records = await Promise.race([resolveMx(domain), timeout]);
      // RFC 7505 "null MX": a single record with an empty exchange says the domain accepts no mail
      if (records.length === 0 || records.every((r) => r.exchange === '' || r.exchange === '.'))
        reason = `Domain ${domain} does not accept email (no MX record)`;
    } catch (err) {
      // an answer meaning "this domain takes no mail", as opposed to "could not find out"
      if (!isNoRecord(err)) return null; // unknown: do not cache, do not fail
      reason = `Domain ${domain} does not accept email (no MX record)`;
    } finally {
      clearTimeout(timer);
    }
    cache.set(domain, { reason, until: Date.now() + cacheMs });
    return reason;
  }

  return {
    kind: 'mx',
    async check(emails) {
      const byDomain = new Map<string, string[]>();
      for (const e of emails) {
        const lower = e.trim().toLowerCase();
        const domain = lower.slice(lower.lastIndexOf('@') + 1);
        byDomain.set(domain, [...(byDomain.get(domain) ?? []), lower]);
      }
      const out = new Map<string, string>();
      const domains = [...byDomain.keys()];
      const workers = Array.from({ length: Math.min(opts.concurrency ?? 20, domains.length) }, async () => {
        for (let d = domains.shift(); d !== undefined; d = domains.shift()) {
          const reason = await lookup(d);
          if (reason) for (const e of byDomain.get(d)!) out.set(e, reason);
        }
      });
      await Promise.all(workers);
      return out;
    },
  };
}
