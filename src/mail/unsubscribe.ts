// Unsubscribe links: /u/{token}, where the token names the account, the subscriber and (optionally) the
// campaign or automation the email came from, signed with MAILGROVE_SECRET. The public page
// (src/http/public/unsubscribe.ts) verifies it with readUnsubscribeToken; nothing is looked up to make one.
import type { Config } from '../config.ts';
import { bytesUuid, sign, uuidBytes, verify } from './signedToken.ts';

const PURPOSE = 'unsubscribe';
const VERSION = 1;
const KIND = { none: 0, campaign: 1, automation: 2 } as const;

/** Where the email that carried the link came from; credited in stats and in the event. */
export interface UnsubscribeSource {
  campaign_id?: string;
  automation_id?: string;
}

export interface UnsubscribeToken extends UnsubscribeSource {
  account_id: string;
  subscriber_id: string;
}

export function unsubscribeToken(
  secret: string,
  accountId: string,
  subscriberId: string,
  source: UnsubscribeSource = {},
): string {
  const kind = source.campaign_id ? KIND.campaign : source.automation_id ? KIND.automation : KIND.none;
  const parts = [Buffer.from([VERSION, kind]), uuidBytes(accountId), uuidBytes(subscriberId)];
  const sourceId = source.campaign_id ?? source.automation_id;
  if (sourceId) parts.push(uuidBytes(sourceId));
  return sign(secret, PURPOSE, Buffer.concat(parts));
}

/**
 * The absolute unsubscribe URL for one subscriber (`{PUBLIC_URL}/u/{token}`): put it in the
 * `unsubscribe_url` Liquid variable and in the List-Unsubscribe header (see headers.ts).
 * Example: unsubscribeUrl(config, accountId, subscriber.id, { automation_id })
 */
export function unsubscribeUrl(
  config: Config,
  accountId: string,
  subscriberId: string,
  source: UnsubscribeSource = {},
): string {
  return `${config.publicUrl}/u/${unsubscribeToken(config.secret, accountId, subscriberId, source)}`;
}

/** The token's contents, or undefined when it is forged, truncated or of another kind. */
export function readUnsubscribeToken(secret: string, token: string): UnsubscribeToken | undefined {
  const p = verify(secret, PURPOSE, token);
  if (!p || p.length < 34 || p[0] !== VERSION) return undefined;
  const out: UnsubscribeToken = {
    account_id: bytesUuid(p.subarray(2, 18)),
    subscriber_id: bytesUuid(p.subarray(18, 34)),
  };
  if (p[1] === KIND.campaign && p.length === 50) out.campaign_id = bytesUuid(p.subarray(34, 50));
  else if (p[1] === KIND.automation && p.length === 50) out.automation_id = bytesUuid(p.subarray(34, 50));
  else if (p[1] !== KIND.none || p.length !== 34) return undefined;
  return out;
}
