// Which pixel loads a privacy proxy made rather than a person: the one rule, used by the open pixel.
//
// Apple Mail Privacy Protection (iOS 15 / macOS 12 and later) fetches every remote image of a message
// through Apple's proxies as soon as the message arrives, read or not, so such a load says the message was
// delivered to Apple Mail, not that anyone opened it. Sources of the rule:
// - the addresses: Apple's own networks as its regional registry records them (ARIN: 17.0.0.0/8 and
//   2620:149::/32; RIPE: 2a01:b740::/32). Apple also publishes the egress ranges of iCloud Private Relay,
//   which Mail Privacy Protection shares (https://mask-api.icloud.com/egress-ip-ranges.csv); that list is
//   large, partner-operated and changes, so it is not copied here — its loads are caught by the agent below.
// - the agent: the proxy's prefetch sends the bare user agent "Mozilla/5.0", nothing after it (as ESPs that
//   studied Mail Privacy Protection loads report, e.g. SocketLabs' help page on identifying MPP opens);
//   the browsers and mail clients a person uses send a longer one.
// The caller passes the client address as Fastify's req.ip, which honours X-Forwarded-For only when the
// instance trusts its proxy (TRUST_PROXY).
import ipaddr from 'ipaddr.js';

const PROXY_RANGES: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  ipaddr.parseCIDR('17.0.0.0/8'),
  ipaddr.parseCIDR('2620:149::/32'),
  ipaddr.parseCIDR('2a01:b740::/32'),
];
const PROXY_AGENT = 'Mozilla/5.0';

export interface OpenRequest {
  ip?: string;
  userAgent?: string;
}

/** True when the pixel load came from a known privacy proxy, not from someone reading the email. */
export function isMachineOpen(req: OpenRequest): boolean {
  if (req.userAgent?.trim() === PROXY_AGENT) return true;
  // dotted quads only: ipaddr.js would also read "17.1" as an address
  if (!req.ip || !(ipaddr.IPv4.isValidFourPartDecimal(req.ip) || ipaddr.IPv6.isValid(req.ip))) return false;
  const addr = ipaddr.process(req.ip); // ::ffff:a.b.c.d counts as the IPv4 address it stands for
  return PROXY_RANGES.some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));
}
