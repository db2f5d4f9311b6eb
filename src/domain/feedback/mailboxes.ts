// Bounce mailboxes polled over IMAP: the instance's (BOUNCE_IMAP_URL) and an account's own, for relays
// that can only deliver bounces to a mailbox. An account's URL is write-only: sealed at rest under the
// instance secret (like DKIM keys), shown back only as its host, when it was last polled and what went
// wrong. Its host obeys the webhooks' address rule (public addresses only) unless
// ALLOW_PRIVATE_SMTP_RELAYS, checked when it is saved and again before every poll (a name re-pointed at a
// private address later is refused then). What arrives there can only affect that account's rows.
//
// Every mailbox is polled under a lease (mailbox_leases), so of several instances one at a time reads it
// and no message is applied twice.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { mailboxSettings, pollRound, roundError, type MailboxSettings } from '../../mail/inbound/mailbox.ts';
import { openSecret, sealSecret } from '../../secret.ts';
import { Validation } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { PrivateHost, publicAddresses } from '../../mail/publicHost.ts';
import * as inbound from './inbound.ts';
import * as repo from './mailboxQueries.ts';

/** a poll round that takes longer than this loses its lease to the next instance */
export const LEASE_SECONDS = 300;
/** account mailboxes one instance polls in one round of its loop */
const MAILBOXES_PER_ROUND = 20;

const FIELD = 'bounce_imap_url';

/** An account's bounce mailbox as PUT /account takes it: an imap(s) URL with a user and password, or null. */
export const BounceImapUrl = z
  .string()
  .trim()
  .max(2000)
  .superRefine((url, ctx) => {
    const problem = url === '' ? null : formProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullable();

function formProblem(url: string): string | null {
  let s: MailboxSettings;
  try {
    s = mailboxSettings(url);
  } catch {
    return 'bounce_imap_url must be an imap:// or imaps:// URL: imaps://user:password@host/INBOX';
  }
  if (!s.host) return 'bounce_imap_url must name a host';
  if (!s.user || !s.pass) return 'bounce_imap_url must carry the mailbox user and password';
  if (s.port === 0) return 'bounce_imap_url must not use port 0';
  return null;
}

export interface MailboxView {
  configured: boolean;
  host: string | null;
  last_polled_at: Date | null;
  last_error: string | null;
}

type Policy = Pick<Config, 'secret' | 'ALLOW_PRIVATE_SMTP_RELAYS' | 'DNS_SERVERS'>;

/** Why the mailbox's host may not be polled (null: it may), and the address to connect to. */
async function hostCheck(config: Policy, host: string): Promise<{ refusal: string } | { address: string | undefined }> {
  if (config.ALLOW_PRIVATE_SMTP_RELAYS) return { address: undefined };
  const privateHost = 'the mailbox host must not be a private, loopback or link-local address';
  try {
    const addresses = await publicAddresses(config, host.replace(/^\[(.*)\]$/, '$1'), privateHost);
    return { address: addresses[0]!.address };
  } catch (err) {
    return { refusal: err instanceof PrivateHost ? privateHost : 'the mailbox host could not be resolved' };
  }
}

/** What sets (a URL) or removes (null) an account's own bounce mailbox. */
export const MailboxUpdate = z.object({ bounce_imap_url: BounceImapUrl }).strict();

/** Sets or removes the account's own bounce mailbox: `input` is `{ bounce_imap_url }` (MailboxUpdate). */
export async function setAccountMailbox(
  db: Db,
  config: Policy,
  accountId: string,
  input: unknown,
): Promise<MailboxView> {
  const url = parseInput(MailboxUpdate, input).bounce_imap_url;
  if (url === null || url === '') {
    await repo.deleteMailbox(db, accountId);
  } else {
    const s = mailboxSettings(url);
    const checked = await hostCheck(config, s.host);
    if ('refusal' in checked) throw Validation.field(FIELD, `bounce_imap_url: ${checked.refusal}`);
    await repo.upsertMailbox(db, accountId, sealSecret(config.secret, url), s.host.slice(0, 253));
  }
  return accountMailbox(db, accountId);
}

/** The account's bounce mailbox as GET /account shows it: never the URL or its password. */
export async function accountMailbox(db: Db, accountId: string): Promise<MailboxView> {
  const m = await repo.findMailbox(db, accountId);
  return {
    configured: !!m,
    host: m?.host ?? null,
    last_polled_at: m?.last_polled_at ?? null,
    last_error: m?.last_error ?? null,
  };
}

/** The lease key of the instance mailbox: where it points, so every instance with that URL shares it. */
export function instanceMailboxKey(url: string): string {
  const s = mailboxSettings(url);
  const where = `${s.host.toLowerCase()}:${s.port}/${s.user}/${s.folder}`;
  return `instance:${createHash('sha256').update(where).digest('hex').slice(0, 32)}`;
}

/** Takes a mailbox's lease; resolves with how to give it back, or undefined when another instance holds it. */
export async function claim(db: Db, key: string, holder: string): Promise<(() => Promise<void>) | undefined> {
  if (!(await repo.claimLease(db, key, holder, LEASE_SECONDS))) return undefined;
  return () => repo.releaseLease(db, key, holder);
}

type Log = Parameters<typeof pollRound>[1]['log'];
type Settings = Parameters<typeof inbound.receive>[1] & Policy & Pick<Config, 'BOUNCE_IMAP_POLL_MS'>;

/**
 * One round over the accounts' own mailboxes that are due (not polled for BOUNCE_IMAP_POLL_MS), each under
 * its lease; what it finds is written on the mailbox (last_polled_at, last_error). Resolves with how many
 * mailboxes it polled.
 */
export async function pollAccountMailboxes(db: Db, config: Settings, holder: string, log: Log): Promise<number> {
  const due = await repo.dueMailboxes(db, config.BOUNCE_IMAP_POLL_MS, MAILBOXES_PER_ROUND);
  let polled = 0;
  for (const m of due) {
    const release = await claim(db, `account:${m.account_id}`, holder);
    if (!release) continue;
    try {
      await pollAccountMailbox(db, config, m.account_id, m.url_sealed, log);
      polled++;
    } finally {
      await release();
    }
  }
  return polled;
}

async function pollAccountMailbox(db: Db, config: Settings, accountId: string, sealed: string, log: Log) {
  let s: MailboxSettings;
  try {
    s = mailboxSettings(openSecret(config.secret, sealed));
  } catch {
    return repo.recordPoll(
      db,
      accountId,
      sealed,
      'the mailbox URL was sealed under another MAILGROVE_SECRET: set it again',
    );
  }
  const checked = await hostCheck(config, s.host);
  if ('refusal' in checked) return repo.recordPoll(db, accountId, sealed, checked.refusal);
  let error: string | null = null;
  try {
    await pollRound(s, {
      address: checked.address,
      log,
      receive: async (m) => {
        const handled = await inbound.receive(db, config, { via: 'imap', onlyAccount: accountId, ...m });
        for (const h of handled)
          log.info({ account: accountId, outcome: h.outcome, reason: h.reason }, 'inbound mail (account mailbox)');
      },
    });
  } catch (err) {
    error = roundError(err, s);
    log.warn({ account: accountId, err: error }, 'account bounce mailbox: poll failed');
  }
  await repo.recordPoll(db, accountId, sealed, error);
}
