// The DNS records a sending domain needs, as the product asks the account to publish them:
// - dkim:        TXT <selector>._domainkey.<domain>  "v=DKIM1; k=rsa; p=<public key>" — the account's own key
// - spf:         TXT <domain>  "v=spf1 include:<instance mail host> ~all" — the mechanism to add to the
//                domain's one SPF record (SMTP_EHLO_NAME, else PUBLIC_URL's host; the operator publishes that
//                host's own SPF record listing the relays' addresses)
// - dmarc:       TXT _dmarc.<domain>  "v=DMARC1; p=none; adkim=r; aspf=r" — a policy to start from
// - return_path: CNAME bounces.<domain> → the instance's bounce domain, so the return path (MAIL FROM) is
//                under the sending domain and SPF aligns
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import type { DnsPurpose } from '../../db/schema/sending.ts';
import { ehloName } from '../../mail/smtpSender.ts';
import { dkimRecordValue } from './keys.ts';

export interface DnsRecord {
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
  purpose: DnsPurpose;
}

/** The host whose SPF record the sending domains include. */
export function spfHost(config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>): string {
  return ehloName(config).replace(/^\[|\]$/g, '');
}

/** The SPF mechanism a sending domain adds: include: for a host name, ip4:/ip6: for an address. */
export function spfMechanism(config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>): string {
  const host = spfHost(config);
  const family = isIP(host);
  return family === 4 ? `ip4:${host}` : family === 6 ? `ip6:${host}` : `include:${host}`;
}

/**
 * Where the return-path CNAME points: the instance's bounce domain when it has one configured
 * (BOUNCE_DOMAIN, read where present), else PUBLIC_URL's host.
 */
export function returnPathTarget(config: Pick<Config, 'publicUrl' | 'BOUNCE_DOMAIN'>): string {
  if (config.BOUNCE_DOMAIN) return config.BOUNCE_DOMAIN.toLowerCase();
  return new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

export const returnPathName = (domain: string) => `bounces.${domain}`;
export const dkimName = (selector: string, domain: string) => `${selector}._domainkey.${domain}`;
export const dmarcName = (domain: string) => `_dmarc.${domain}`;
export const SUGGESTED_DMARC = 'v=DMARC1; p=none; adkim=r; aspf=r';

export function dnsRecords(
  config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl' | 'BOUNCE_DOMAIN'>,
  row: { domain: string; selector: string; public_key: string },
): DnsRecord[] {
  return [
    { type: 'TXT', name: dkimName(row.selector, row.domain), value: dkimRecordValue(row.public_key), purpose: 'dkim' },
    { type: 'TXT', name: row.domain, value: `v=spf1 ${spfMechanism(config)} ~all`, purpose: 'spf' },
    { type: 'TXT', name: dmarcName(row.domain), value: SUGGESTED_DMARC, purpose: 'dmarc' },
    { type: 'CNAME', name: returnPathName(row.domain), value: returnPathTarget(config), purpose: 'return_path' },
  ];
}
