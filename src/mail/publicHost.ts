// Whether a host the product connects to on someone's behalf (a webhook's URL, an account's SMTP relay)
// is on the public internet: the one rule both follow. Names are resolved through the product's one
// resolver (dns.ts, DNS_SERVERS), never the system's, and every address a name resolves to must be public
// unicast; the caller then connects to an address this check returned, so a name re-pointed at 127.0.0.1
// between the check and the connection (DNS rebinding) is still refused.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Config } from '../config.ts';
import { dnsError, dnsResolver, isNoRecord } from './dns.ts';

/**
 * Special-purpose ranges ipaddr.js files under 'unicast'. IPv4-compatible addresses (::a.b.c.d, deprecated
 * by RFC 4291) embed an IPv4 address we cannot vouch for, and the URL parser writes [::127.0.0.1] as
 * [::7f00:1]; :: and ::1 inside it have names of their own. Every other range (NAT64, 6to4, Teredo,
 * discard, documentation, benchmarking, CGNAT, 0/8, 240/4, multicast) ipaddr.js names already.
 */
const UNNAMED_SPECIAL: [ipaddr.IPv6, number][] = [ipaddr.IPv6.parseCIDR('::/96')];

/** Anything but a plain public unicast address: loopback, private, link-local, reserved, translated, multicast. */
export function isPrivateAddress(address: string): boolean {
  if (!isIP(address)) return true; // not an address at all: refuse rather than guess
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address); // ::ffff:a.b.c.d is judged as the IPv4 address it stands for
  } catch {
    return true;
  }
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && UNNAMED_SPECIAL.some((range) => (parsed as ipaddr.IPv6).match(range));
}

export interface HostAddress {
  address: string;
  family: 4 | 6;
}

/** Thrown (code EPRIVATE) when a host is, or resolves to, an address that is not public. */
export class PrivateHost extends Error {
  readonly code = 'EPRIVATE';
}

/** "localhost" and its subdomains are loopback by definition (RFC 6761), whatever a DNS server says. */
const LOOPBACK_NAME = /(^|\.)localhost\.?$/i;

/**
 * The public addresses of `host` (a name or an address literal, IPv6 without brackets), looked up through
 * the product's resolver. Throws PrivateHost when any of them is not public (or there are none), and the
 * resolver's error (code ENOTFOUND, ETIMEOUT, …) when the name cannot be resolved.
 */
export async function publicAddresses(
  config: Pick<Config, 'DNS_SERVERS'>,
  host: string,
  privateMessage: string,
): Promise<HostAddress[]> {
  const literal = isIP(host);
  if (literal) {
    if (isPrivateAddress(host)) throw new PrivateHost(privateMessage);
    return [{ address: host, family: literal as 4 | 6 }];
  }
  if (LOOPBACK_NAME.test(host)) throw new PrivateHost(privateMessage);
  const resolver = dnsResolver(config);
  const found: HostAddress[] = [];
  const failures: unknown[] = [];
  for (const [type, family] of [
    ['A', 4],
    ['AAAA', 6],
  ] as const) {
    try {
      for (const address of (await resolver.resolve(host, type)) as string[]) found.push({ address, family });
    } catch (err) {
      if (!isNoRecord(err)) failures.push(err);
    }
  }
  if (found.length === 0) throw failures[0] ?? dnsError('ENOTFOUND', `${host} has no address`);
  if (found.some((a) => isPrivateAddress(a.address))) throw new PrivateHost(privateMessage);
  return found;
}
