// How fast one process sends bulk mail, shared by its campaign lanes and its automation runs: the global
// send rate (one token bucket in the database for every instance), the per-provider gates (concurrency and
// rate per instance), the providers' backoffs after a 421 / 4.7.x (in the database for every instance) and
// the recipient domain → provider lookup. One Pacing per process: a provider that throttles a campaign
// email holds back the automation emails to it too, and the other way round.
import { dnsResolver } from '../../mail/dns.ts';
import { domainOf } from '../../mail/providers.ts';
import { ProviderBackoffs } from './backoffs.ts';
import type { PacingDeps } from './deps.ts';
import { parseProviderLimits, ProviderGates, ProviderLookup, type MxResolver } from './providers.ts';
import { RateGate } from './sendRate.ts';

export class Pacing {
  readonly rate: RateGate;
  readonly gates: ProviderGates;
  readonly backoffs: ProviderBackoffs;
  private readonly lookup: ProviderLookup;

  constructor(deps: PacingDeps, resolveMx?: MxResolver) {
    this.rate = new RateGate(deps.db, deps.config.SEND_RATE_PER_SECOND);
    this.gates = new ProviderGates(parseProviderLimits(deps.config.PROVIDER_LIMITS));
    this.backoffs = new ProviderBackoffs(deps);
    // MX lookups through the product's one resolver (DNS_SERVERS), unless a test hands in its own
    const mx = resolveMx ?? ((d: string) => dnsResolver(deps.config).resolveMx(d));
    this.lookup = new ProviderLookup({ resolveMx: mx });
  }

  /** Each address's provider, looking up (once per domain, cached) the domains not known yet. */
  async providersOf(emails: string[]): Promise<string[]> {
    const domains = emails.map(domainOf);
    const unknown = new Set(domains.filter((d) => this.lookup.cached(d) === undefined));
    await Promise.all([...unknown].map((d) => this.lookup.providerOf(d)));
    return domains.map((d) => this.lookup.cached(d) ?? d);
  }
}
