// Who a message is sent as, resolved once per prepared campaign or automation email (and per test or
// confirmation mail): the DKIM key of the account's verified sending domain for the From address, and the
// return-path domain under it. Without a verified domain the message goes as the instance (its env key,
// if any, and its bounce domain). The relay (`relayId`) is the account's relay that lists the From
// address's domain (relays.ts); without one the message leaves through the instance's SMTP_URL.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { openSecret } from '../../secret.ts';
import { domainOfSender } from './match.ts';
import { returnPathName } from './records.ts';
import { relayFor } from './relays.ts';

export interface SenderIdentity {
  dkim?: { domainName: string; keySelector: string; privateKey: string };
  returnPathDomain?: string;
  relayId?: string;
}

export async function senderIdentity(
  db: Db,
  config: Pick<Config, 'secret'>,
  accountId: string | null,
  fromAddress: string,
): Promise<SenderIdentity> {
  if (!accountId) return {};
  const [found, relayId] = await Promise.all([
    domainOfSender(db, accountId, fromAddress),
    relayFor(db, accountId, fromAddress),
  ]);
  const relay = relayId ? { relayId } : {};
  const row = found?.row;
  if (!row || row.status !== 'verified') return relay;
  let privateKey: string;
  try {
    privateKey = openSecret(config.secret, row.private_key_sealed);
  } catch {
    // sealed under another MAILGROVE_SECRET: the mail still goes, signed by the instance key if any
    return relay;
  }
  return {
    dkim: { domainName: row.domain, keySelector: row.selector, privateKey },
    returnPathDomain: returnPathName(row.domain),
    ...relay,
  };
}
