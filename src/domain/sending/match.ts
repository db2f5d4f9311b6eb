// Which of an account's sending domains a From address belongs to: the From domain itself, else its
// organisational domain (mail from news.example.com is aligned with a key of example.com under DMARC's
// relaxed alignment). The exact domain wins when the account has both.
import type { Db } from '../../db/client.ts';
import { domainOfAddress, organisationalDomain } from './names.ts';
import * as q from './queries.ts';

export async function domainOfSender(
  db: Db,
  accountId: string,
  fromAddress: string,
): Promise<{ fromDomain: string; row: q.DomainRow | undefined } | undefined> {
  const fromDomain = domainOfAddress(fromAddress);
  if (!fromDomain) return undefined;
  const org = organisationalDomain(fromDomain);
  const rows = await q.domainsNamed(db, accountId, org === fromDomain ? [fromDomain] : [fromDomain, org]);
  const row = rows.find((r) => r.domain === fromDomain) ?? rows.find((r) => r.domain === org);
  return { fromDomain, row };
}
