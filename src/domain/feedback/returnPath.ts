// The return-path domain of a message: the host its VERP envelope sender (and mailto unsubscribe
// address) is at, where late bounces, complaints and unsubscribe mail come home to the inbound listener
// or the bounce mailbox. One function, so that every kind of mail (campaign, automation, test,
// confirmation) asks the same question. Only an instance with a bounce setup (BOUNCE_DOMAIN) has return
// paths: then an account's verified sending domain answers with its own `bounces.<domain>` host (a CNAME
// to BOUNCE_DOMAIN, published with its other records), anyone else with BOUNCE_DOMAIN itself. Undefined:
// mail goes out with the From address as its envelope sender, as without this feature.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { senderIdentity, type SenderIdentity } from '../sending/identity.ts';

export async function returnPathDomainFor(
  db: Db,
  config: Pick<Config, 'BOUNCE_DOMAIN' | 'secret'>,
  accountId: string,
  fromAddress: string,
  /** the sender identity when the caller resolved it already (saves a second lookup) */
  identity?: SenderIdentity,
): Promise<string | undefined> {
  const instance = config.BOUNCE_DOMAIN?.trim().toLowerCase();
  if (!instance) return undefined;
  const own = (identity ?? (await senderIdentity(db, config, accountId, fromAddress))).returnPathDomain;
  return own ?? instance;
}
