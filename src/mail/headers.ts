// The headers and sender every bulk email carries: List-Unsubscribe (https URL, plus a
// mailto: the recipient's own VERP unsubscribe address when a return-path domain exists, else
// UNSUBSCRIBE_MAILTO when set), List-Unsubscribe-Post for RFC 8058 one-click, Precedence: bulk;
// and From/Reply-To resolved from the message, then the account defaults, then MAIL_FROM.
import type { Config } from '../config.ts';
import { formatAddress } from './transport.ts';

/**
 * Headers for one recipient's message. `unsubscribeUrl` comes from unsubscribeUrl() (unsubscribe.ts).
 * Gmail and Yahoo require both List-Unsubscribe and List-Unsubscribe-Post for bulk senders.
 */
export function bulkHeaders(
  config: Config,
  unsubscribeUrl: string,
  extra: Record<string, string> = {},
  /** this recipient's `unsubscribe+<token>@<return-path domain>` (verp.ts): any mail to it unsubscribes them */
  unsubscribeMailbox?: string,
): Record<string, string> {
  const token = unsubscribeUrl.slice(unsubscribeUrl.lastIndexOf('/') + 1);
  const targets = [`<${unsubscribeUrl}>`];
  if (unsubscribeMailbox) targets.push(`<mailto:${unsubscribeMailbox}?subject=unsubscribe>`);
  else if (config.UNSUBSCRIBE_MAILTO)
    targets.push(`<mailto:${config.UNSUBSCRIBE_MAILTO}?subject=unsubscribe%20${token}>`);
  return {
    'List-Unsubscribe': targets.join(', '),
    'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    Precedence: 'bulk',
    ...extra,
  };
}

export interface SenderFields {
  from_name?: string | null;
  from_email?: string | null;
  reply_to?: string | null;
}

export interface AccountDefaults {
  default_from_name?: string | null;
  default_from_email?: string | null;
  default_reply_to?: string | null;
}

/**
 * From and Reply-To for a message: the message's own fields, else the account defaults, else MAIL_FROM.
 * A from_name without a from_email borrows the address of the next level down.
 */
export function resolveSender(
  config: Config,
  own: SenderFields,
  account: AccountDefaults,
): { from: string; replyTo?: string } {
  const email = own.from_email || account.default_from_email;
  const name = own.from_name || account.default_from_name;
  let from: string;
  if (email) from = formatAddress(name, email);
  else if (name) from = formatAddress(name, mailFromAddress(config.MAIL_FROM));
  else from = config.MAIL_FROM;
  const replyTo = own.reply_to || account.default_reply_to || undefined;
  return { from, replyTo };
}

/** The bare address of "Name <addr>" or "addr". */
export function mailFromAddress(mailFrom: string): string {
  const m = /<([^>]+)>/.exec(mailFrom);
  return (m ? m[1]! : mailFrom).trim();
}

const hostOf = new Map<string, string>();
function publicHost(config: Pick<Config, 'publicUrl'>): string {
  let host = hostOf.get(config.publicUrl);
  if (host === undefined) {
    host = new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '') || 'localhost';
    hostOf.set(config.publicUrl, host);
  }
  return host;
}

/**
 * List-Id (RFC 2919) of an account's mail: one list per account, under its verified sending domain when the
 * message is signed by one, else under the instance's host. Receivers group and filter by it.
 */
export function listId(config: Pick<Config, 'publicUrl'>, accountId: string, domain?: string): string {
  return `<${accountId}.${domain ?? publicHost(config)}>`;
}

export type FeedbackKind = 'campaign' | 'automation' | 'test' | 'confirmation';

/**
 * Feedback-ID in the form Gmail's feedback loop reads, "a:b:c:SenderId": what was sent (the campaign or
 * automation), the account, the kind of mail, and the sender (the instance's host, the same for all its
 * mail). Gmail reports spam rates per value of each field.
 */
export function feedbackId(
  config: Pick<Config, 'publicUrl'>,
  subjectId: string,
  accountId: string,
  kind: FeedbackKind,
): string {
  return `${subjectId}:${accountId}:${kind}:${publicHost(config)}`;
}
