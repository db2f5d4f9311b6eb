// Whether a From address of an account leaves from an authenticated domain: what the checks before a send
// read. `domain` is the account's sending domain the address belongs to (its own domain or its
// organisational domain), null when the account has none for it.
import type { Db } from '../../db/client.ts';
import { domainOfSender } from './match.ts';
import { organisationalDomain } from './names.ts';

export interface SenderDomainStatus {
  domain: string | null;
  verified: boolean;
  /** the message will carry a DKIM signature whose d= aligns with the From domain (relaxed, RFC 7489) */
  dkimAligned: boolean;
  /** the domain's last check found a DMARC record with a policy */
  dmarc: boolean;
}

export async function sendingDomainStatus(db: Db, accountId: string, fromAddress: string): Promise<SenderDomainStatus> {
  const found = await domainOfSender(db, accountId, fromAddress);
  const row = found?.row;
  if (!found || !row) return { domain: null, verified: false, dkimAligned: false, dmarc: false };
  const verified = row.status === 'verified';
  return {
    domain: row.domain,
    verified,
    dkimAligned: verified && organisationalDomain(row.domain) === organisationalDomain(found.fromDomain),
    dmarc: (row.checks ?? []).some((c) => c.purpose === 'dmarc' && c.ok),
  };
}
