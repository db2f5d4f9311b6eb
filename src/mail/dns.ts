// The one DNS resolver of the product. Every lookup Mailgrove makes — provider detection by MX, the import
// verifier's MX check, the sending domains' DKIM/SPF/DMARC/return-path checks — goes through here, so
// DNS_SERVERS (comma-separated ip:port) sends all of them to the servers an operator chose, and tests run an
// authoritative server of their own on loopback so nothing leaves the machine.
//
// Every answer is bounded: a lookup that takes longer than its timeout fails with ETIMEOUT (node's
// resolver retries within it), and an answer with too many records or too much text fails with ETOOLARGE,
// so a lying or hostile zone costs a failed check, never memory or a hung request.
import { Resolver } from 'node:dns/promises';
import type { Config } from '../config.ts';

export type MxRecord = { exchange: string; priority: number };

export interface DnsResolver {
  resolveMx(domain: string): Promise<MxRecord[]>;
  /** each record's character-strings, as node:dns gives them */
  resolveTxt(name: string): Promise<string[][]>;
  resolveCname(name: string): Promise<string[]>;
  /** node:dns `resolve(name, type)` shape, for libraries that take a resolver function (mailauth) */
  resolve(name: string, type: string): Promise<unknown>;
}

/** How much of an answer is read: more records or more text is a hostile or broken zone. */
export const DNS_LIMITS = { records: 50, textChars: 16_384 } as const;

export function dnsError(code: string, message: string): Error & { code: string } {
  return Object.assign(new Error(message), { code });
}

/** The servers of DNS_SERVERS as node:dns takes them ('ip:port', '[v6]:port'); [] = the system's. */
export function dnsServers(setting: string): string[] {
  return setting
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

const shared = new Map<string, DnsResolver>();

/** The process's resolver for this configuration (one per DNS_SERVERS value, so its sockets are reused). */
export function dnsResolver(config: Pick<Config, 'DNS_SERVERS'>, opts: { timeoutMs?: number } = {}): DnsResolver {
  const key = `${config.DNS_SERVERS}|${opts.timeoutMs ?? ''}`;
  let hit = shared.get(key);
  if (!hit) shared.set(key, (hit = createResolver(dnsServers(config.DNS_SERVERS), opts.timeoutMs ?? 3000)));
  return hit;
}

export function createResolver(servers: string[], timeoutMs: number): DnsResolver {
  // two tries within the timeout: one lost UDP packet should not fail a check
  const resolver = new Resolver({ timeout: Math.max(1, Math.floor(timeoutMs / 2)), tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);

  async function bounded<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (typeof name !== 'string' || name.length === 0 || name.length > 253)
      throw dnsError('EBADNAME', `Not a name DNS can look up: ${String(name).slice(0, 80)}`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(dnsError('ETIMEOUT', `DNS lookup of ${name} timed out`)), timeoutMs + 100);
    });
    try {
      return await Promise.race([work(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  function capped<T>(name: string, records: T[], text: (r: T) => number): T[] {
    if (records.length > DNS_LIMITS.records)
      throw dnsError('ETOOLARGE', `DNS answer for ${name} has ${records.length} records`);
    let total = 0;
    for (const r of records) total += text(r);
    if (total > DNS_LIMITS.textChars) throw dnsError('ETOOLARGE', `DNS answer for ${name} is too large`);
    return records;
  }

  const api: DnsResolver = {
    resolveMx: (domain) =>
      bounded(domain, async () =>
        // Node 24 adds a `type` field; the answer keeps the shape it declares on every Node
        capped(domain, await resolver.resolveMx(domain), (r) => r.exchange.length).map(({ exchange, priority }) => ({
          exchange,
          priority,
        })),
      ),
    resolveTxt: (name) =>
      bounded(name, async () =>
        capped(name, await resolver.resolveTxt(name), (r) => r.reduce((n, s) => n + s.length, 0)),
      ),
    resolveCname: (name) => bounded(name, async () => capped(name, await resolver.resolveCname(name), (r) => r.length)),
    async resolve(name, type) {
      switch (type.toUpperCase()) {
        case 'MX':
          return api.resolveMx(name);
        case 'TXT':
          return api.resolveTxt(name);
        case 'CNAME':
          return api.resolveCname(name);
        case 'A':
          return bounded(name, async () => capped(name, await resolver.resolve4(name), (r) => r.length));
        case 'AAAA':
          return bounded(name, async () => capped(name, await resolver.resolve6(name), (r) => r.length));
        default:
          throw dnsError('ENOTIMP', `DNS record type ${type} is not looked up`);
      }
    },
  };
  return api;
}

/** True for the answers that mean "there is no such record", as opposed to "could not find out". */
export function isNoRecord(err: unknown): boolean {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NXDOMAIN';
}
