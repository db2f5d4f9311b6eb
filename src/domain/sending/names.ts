// Domain names as a sending domain takes them: what a person types ("News.Example.com.", "@example.com",
// "bücher.example") becomes the lower-case ASCII name DNS knows (punycode for an IDN), or a Validation.
import { domainToASCII } from 'node:url';
import { getDomain, getPublicSuffix } from 'tldts';
import { z } from 'zod';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// room under 253 for "<selector>._domainkey." in front of the longest name
export const MAX_DOMAIN_LENGTH = 230;

/** The ASCII form of a host name, or null when it is not one a sending domain can be. */
export function asciiDomain(input: string): string | null {
  const trimmed = input.trim().replace(/^@/, '').replace(/\.$/, '');
  if (!trimmed || trimmed.length > 1000 || /[\s/:@?#\\]/.test(trimmed)) return null;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || ascii.length > MAX_DOMAIN_LENGTH) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null; // an IPv4 address, not a name
  // a public suffix itself (com, co.uk, github.io) belongs to nobody who could publish records there
  if (getPublicSuffix(ascii, { allowPrivateDomains: true }) === ascii) return null;
  return ascii;
}

/** The organisational domain (RFC 7489 §3.2): the registrable part, "example.co.uk" of "news.example.co.uk". */
export function organisationalDomain(domain: string): string {
  return getDomain(domain, { allowPrivateDomains: true }) ?? domain;
}

/** The domain of an address, "Name <a@b.example>" or "a@b.example", lower-case ASCII; null without one. */
export function domainOfAddress(address: string): string | null {
  const m = /<([^>]*)>/.exec(address);
  const bare = (m ? m[1]! : address).trim();
  const at = bare.lastIndexOf('@');
  if (at < 0) return null;
  return asciiDomain(bare.slice(at + 1));
}

export const DomainName = z
  .string({ error: 'domain is required' })
  .max(1000, 'domain must be a domain name such as news.example.com')
  .transform((v, ctx) => {
    const ascii = asciiDomain(v);
    if (!ascii) {
      ctx.addIssue({ code: 'custom', message: 'domain must be a domain name such as news.example.com' });
      return z.NEVER;
    }
    return ascii;
  });
