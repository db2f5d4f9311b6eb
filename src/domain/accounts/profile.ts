// The account as its own API shows and edits it (GET/PUT /api/v1/external/account): its name, the sender
// defaults every campaign starts from, its time zone, its postal address, whether new campaigns track opens
// and clicks, which checks before a send refuse it for this account, and its own bounce mailbox (write-only:
// feedback/mailboxes.ts keeps it sealed and shows only where it points and how its polls went). The plan
// limit stays the operator's (admin API), so it is shown here but not editable.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Account } from '../../db/schema.ts';
import type { RenderAccount } from '../../mail/render.ts';
import { NotFound } from '../errors.ts';
import { accountMailbox, BounceImapUrl, setAccountMailbox, type MailboxView } from '../feedback/mailboxes.ts';
import { storableString } from '../storable.ts';
import { isTimeZone, parseInput } from '../validation.ts';
import * as repo from './queries.ts';

/**
 * Every check a campaign passes before it goes out (campaigns/checks.ts runs them). Listed here because an
 * account names the ones it wants to block on, and the account's own rules must know the names.
 */
export const SEND_CHECK_IDS = [
  'from_domain',
  'dmarc',
  'postal_address',
  'unsubscribe_link',
  'public_url',
  'private_links',
  'html_size',
  'subject',
  'preview_text',
  'text_part',
] as const;
export type SendCheckId = (typeof SEND_CHECK_IDS)[number];

/** Lines of a postal address, as people write them on an envelope; the footer joins them with commas. */
export const PostalAddress = storableString()
  .trim()
  .max(500, 'postal_address must be at most 500 characters')
  .refine((a) => a.split(/\r?\n/).length <= 8, 'postal_address must be at most 8 lines')
  .transform((a) => (a === '' ? null : a.replace(/\r\n?/g, '\n')))
  .nullable();

/**
 * An IANA time zone name (Europe/Berlin, America/New_York, UTC): the runtime's zone database knows it, and
 * it has the shape of a name, not an offset or an abbreviation PostgreSQL would read otherwise.
 */
export const TimeZone = z
  .string()
  .trim()
  .min(1, 'timezone is required')
  .max(64)
  .refine(isTimeZone, 'timezone must be an IANA time zone name such as Europe/Berlin or UTC');

export const BlockingChecks = z
  .array(z.enum(SEND_CHECK_IDS, { error: `Each check must be one of: ${SEND_CHECK_IDS.join(', ')}` }))
  .max(SEND_CHECK_IDS.length)
  .transform((ids) => [...new Set(ids)]);

const Email = z.string().trim().max(254).pipe(z.email('A valid email address is required'));

export const ProfileUpdate = z
  .object({
    name: storableString().trim().min(1, 'Name is required').max(200),
    default_from_name: storableString().trim().max(200).nullable(),
    default_from_email: Email.nullable(),
    default_reply_to: Email.nullable(),
    timezone: TimeZone,
    postal_address: PostalAddress,
    tracking_enabled: z.boolean(),
    blocking_checks: BlockingChecks,
    bounce_imap_url: BounceImapUrl,
  })
  .partial()
  .strict();
export type ProfileUpdate = z.input<typeof ProfileUpdate>;

export interface Profile {
  id: string;
  name: string;
  default_from_name: string | null;
  default_from_email: string | null;
  default_reply_to: string | null;
  timezone: string;
  postal_address: string | null;
  tracking_enabled: boolean;
  blocking_checks: string[];
  subscriber_limit: number;
  created_at: Date;
  updated_at: Date;
  bounce_mailbox: MailboxView;
}

export async function get(db: Db, accountId: string): Promise<Profile> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new NotFound('Account not found');
  return { ...present(account), bounce_mailbox: await accountMailbox(db, accountId) };
}

/** Changes only the fields given. */
export async function update(
  db: Db,
  config: Pick<Config, 'secret' | 'ALLOW_PRIVATE_SMTP_RELAYS' | 'DNS_SERVERS'>,
  accountId: string,
  input: unknown,
): Promise<Profile> {
  const { bounce_imap_url, ...changes } = parseInput(ProfileUpdate, input);
  if (!(await repo.findAccount(db, accountId))) throw new NotFound('Account not found');
  // first: a mailbox host that is refused changes nothing else
  if (bounce_imap_url !== undefined) await setAccountMailbox(db, config, accountId, { bounce_imap_url });
  if (Object.keys(changes).length === 0) return get(db, accountId);
  const account = await repo.updateAccount(db, accountId, { ...changes, updated_at: new Date() });
  if (!account) throw new NotFound('Account not found');
  return { ...present(account), bounce_mailbox: await accountMailbox(db, accountId) };
}

/** What templates see as `account`: the name, and the address on one line as a footer shows it. */
export function renderAccount(a: Partial<Pick<Account, 'name' | 'postal_address'>>): RenderAccount {
  return { name: a.name ?? '', postal_address: addressLine(a.postal_address) };
}

/** "Acme Ltd\n1 Main St\nSpringfield" → "Acme Ltd, 1 Main St, Springfield"; '' when there is none. */
export function addressLine(address: string | null | undefined): string {
  return (address ?? '')
    .split('\n')
    .map((l) => l.trim().replace(/,$/, ''))
    .filter(Boolean)
    .join(', ');
}

function present(a: Account): Omit<Profile, 'bounce_mailbox'> {
  return {
    id: a.id,
    name: a.name,
    default_from_name: a.default_from_name,
    default_from_email: a.default_from_email,
    default_reply_to: a.default_reply_to,
    timezone: a.timezone,
    postal_address: a.postal_address,
    tracking_enabled: a.tracking_enabled,
    blocking_checks: a.blocking_checks,
    subscriber_limit: a.subscriber_limit,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}
