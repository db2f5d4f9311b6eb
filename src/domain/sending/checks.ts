// The live DNS check of a sending domain, through the product's one resolver (mail/dns.ts): the DKIM key
// and the DMARC record read and validated by mailauth, the SPF record and the return-path CNAME compared
// with what the product asked for. A lookup that fails, times out, lies or is too large is that check's
// failure with what was found, never an exception.
import { createRequire } from 'node:module';
import type { Config } from '../../config.ts';
import type { DomainCheck, SendingDomainStatus } from '../../db/schema/sending.ts';
import { isNoRecord, type DnsResolver } from '../../mail/dns.ts';
import { sameKey } from './keys.ts';
import { dkimName, returnPathName, returnPathTarget, spfMechanism } from './records.ts';

// mailauth's record readers, which its own verifiers use (no typings of their own)
const require = createRequire(import.meta.url);
const { getPublicKey } = require('mailauth/lib/tools.js') as {
  getPublicKey(
    type: 'DKIM',
    name: string,
    minBitLength: number,
    resolver: DnsResolver['resolve'],
  ): Promise<{ publicKey: string; rr: string; modulusLength: number }>;
};
const getDmarcRecord = require('mailauth/lib/dmarc/get-dmarc-record.js') as (
  domain: string,
  resolver: DnsResolver['resolve'],
) => Promise<false | { p?: string; rr: string; isOrgRecord: boolean }>;

/** What is kept of a DNS answer in a check: enough to show it, never a zone's worth of text. */
const FOUND_MAX = 1000;
const shown = (s: string | null | undefined) => (s ? s.slice(0, FOUND_MAX) : null);

export interface CheckOutcome extends DomainCheck {
  /** why it failed, in words (not stored: the dashboard shows it after a verify) */
  message?: string;
}

function failure(purpose: DomainCheck['purpose'], err: unknown, name: string): CheckOutcome {
  const code = (err as { code?: string } | undefined)?.code;
  const rr = (err as { rr?: string } | undefined)?.rr;
  const message = isNoRecord(err)
    ? `No record at ${name}`
    : code === 'ETIMEOUT'
      ? `DNS did not answer for ${name} in time`
      : code === 'ETOOLARGE'
        ? `The DNS answer for ${name} is too large`
        : `The record at ${name} is not usable (${String((err as Error)?.message ?? err).slice(0, 200)})`;
  return { purpose, ok: false, found: shown(rr), message };
}

export async function dkimCheck(
  resolver: DnsResolver,
  row: { domain: string; selector: string; public_key: string },
): Promise<CheckOutcome> {
  const name = dkimName(row.selector, row.domain);
  try {
    const key = await getPublicKey('DKIM', name, 1024, resolver.resolve);
    if (sameKey(row.public_key, key.publicKey)) return { purpose: 'dkim', ok: true, found: shown(key.rr) };
    return { purpose: 'dkim', ok: false, found: shown(key.rr), message: `The key at ${name} is not this domain's key` };
  } catch (err) {
    return failure('dkim', err, name);
  }
}

export async function spfCheck(
  resolver: DnsResolver,
  config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>,
  domain: string,
): Promise<CheckOutcome> {
  try {
    const spf = (await resolver.resolveTxt(domain)).map((r) => r.join('')).filter((r) => /^v=spf1(\s|$)/i.test(r));
    if (spf.length === 0) return { purpose: 'spf', ok: false, found: null, message: `No SPF record at ${domain}` };
    if (spf.length > 1)
      return {
        purpose: 'spf',
        ok: false,
        found: shown(spf.join(' | ')),
        message: `${domain} has ${spf.length} SPF records; receivers ignore them all (RFC 7208 §4.5): merge them into one`,
      };
    const mechanism = spfMechanism(config).toLowerCase();
    const terms = spf[0]!.toLowerCase().split(/\s+/);
    const ok = terms.some((t) => t.replace(/^\+/, '') === mechanism);
    return {
      purpose: 'spf',
      ok,
      found: shown(spf[0]),
      ...(!ok && { message: `The SPF record of ${domain} does not contain ${mechanism}` }),
    };
  } catch (err) {
    return failure('spf', err, domain);
  }
}

export async function dmarcCheck(resolver: DnsResolver, domain: string): Promise<CheckOutcome> {
  try {
    const record = await getDmarcRecord(domain, resolver.resolve);
    if (!record) return { purpose: 'dmarc', ok: false, found: null, message: `No DMARC record at _dmarc.${domain}` };
    const ok = ['none', 'quarantine', 'reject'].includes(String(record.p ?? '').toLowerCase());
    return {
      purpose: 'dmarc',
      ok,
      found: shown(record.rr),
      ...(!ok && { message: 'The DMARC record has no valid policy (p=none, quarantine or reject)' }),
    };
  } catch (err) {
    return failure('dmarc', err, `_dmarc.${domain}`);
  }
}

export async function returnPathCheck(
  resolver: DnsResolver,
  config: Pick<Config, 'publicUrl'>,
  domain: string,
): Promise<CheckOutcome> {
  const name = returnPathName(domain);
  try {
    const targets = (await resolver.resolveCname(name)).map((t) => t.toLowerCase().replace(/\.$/, ''));
    const want = returnPathTarget(config);
    const ok = targets.includes(want);
    return {
      purpose: 'return_path',
      ok,
      found: shown(targets.join(', ')),
      ...(!ok && { message: `${name} must be a CNAME of ${want}` }),
    };
  } catch (err) {
    return failure('return_path', err, name);
  }
}

/** Every check of a domain, run at once. */
export async function checkDomain(
  resolver: DnsResolver,
  config: Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>,
  row: { domain: string; selector: string; public_key: string },
): Promise<CheckOutcome[]> {
  return Promise.all([
    dkimCheck(resolver, row),
    spfCheck(resolver, config, row.domain),
    dmarcCheck(resolver, row.domain),
    returnPathCheck(resolver, config, row.domain),
  ]);
}

/**
 * The status the checks give. The DKIM record is the proof: the account's own key published under the
 * domain shows it controls the domain, and it is what signing needs, so it alone decides "verified".
 * A domain that was verified and no longer is, or whose record holds another key, is "failed"; one whose
 * record is not there (yet) or could not be read stays "pending". SPF, DMARC and the return path are
 * reported and checked before a send (they are advice, not proof).
 */
export function statusOf(checks: DomainCheck[], wasVerified: boolean): SendingDomainStatus {
  const dkim = checks.find((c) => c.purpose === 'dkim');
  if (dkim?.ok) return 'verified';
  if (wasVerified || dkim?.found) return 'failed';
  return 'pending';
}
