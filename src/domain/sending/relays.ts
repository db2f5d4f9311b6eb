// SMTP relays of an account: its own mail servers, each carrying the mail whose From domain it lists
// (relayFor, called by the sender identity); the instance's SMTP_URL carries the rest. A relay's URL,
// credentials included, is sealed under the instance secret and never answered, logged or stored in the
// clear: answers show the host, port, TLS mode and whether there are credentials. Its host must be on the
// public internet (mail/publicHost.ts, the webhooks' rule) unless ALLOW_PRIVATE_SMTP_RELAYS: checked
// here when it is added and again by the SMTP pool at every connection.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { PrivateHost, publicAddresses } from '../../mail/publicHost.ts';
import { PRIVATE_RELAY } from '../../mail/smtpPool.ts';
import type { MailTransport } from '../../mail/transport.ts';
import { openSecret, sealSecret } from '../../secret.ts';
import { Email } from '../subscribers/subscribers.ts';
import { Conflict, NotFound, Validation } from '../errors.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import { DomainName, domainOfAddress } from './names.ts';
import * as q from './relayQueries.ts';

export const NOT_FOUND = 'Relay not found';
export const MAX_FROM_DOMAINS = 50;
const URL_MESSAGE = 'url must be an smtp:// or smtps:// URL such as smtps://user:password@smtp.example.com:465';
/** The settings a relay URL may carry (the same as SMTP_URL's), each only as "false". */
const URL_SETTINGS = new Set(['starttls', 'tls_reject_unauthorized']);

export interface Relay {
  id: string;
  name: string;
  host: string;
  port: number;
  secure: boolean;
  has_credentials: boolean;
  from_domains: string[];
  created_at: string;
}

function shape(row: q.RelayRow): Relay {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    port: row.port,
    secure: row.secure,
    has_credentials: row.has_credentials,
    from_domains: row.from_domains,
    created_at: row.created_at.toISOString(),
  };
}

/** A relay URL's parts, checked for form only (no lookup). Never echoes the URL: it may hold a password. */
const RelayUrl = z
  .string({ error: 'url is required' })
  .max(2048, 'url must be at most 2048 characters')
  .transform((raw, ctx) => {
    const fail = (message = URL_MESSAGE) => {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    };
    let url: URL;
    try {
      url = new URL(raw.trim());
      decodeURIComponent(url.username);
      decodeURIComponent(url.password);
    } catch {
      return fail();
    }
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') return fail();
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (!host) return fail();
    if (url.port === '0') return fail('url must not use port 0');
    if ((url.pathname && url.pathname !== '/') || url.hash) return fail('url must not have a path or a fragment');
    for (const [key, value] of url.searchParams)
      if (!URL_SETTINGS.has(key) || value !== 'false')
        return fail('url may only carry ?starttls=false and ?tls_reject_unauthorized=false');
    const secure = url.protocol === 'smtps:';
    return {
      url: url.toString(),
      host,
      port: Number(url.port || (secure ? 465 : 587)),
      secure,
      has_credentials: url.username !== '',
    };
  });

export const NewRelay = z
  .object({
    name: z
      .string({ error: 'name is required' })
      .trim()
      .min(1, 'name is required')
      .max(100, 'name must be at most 100 characters')
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'name must not contain control characters'),
    url: RelayUrl,
    from_domains: z
      .array(DomainName, { error: 'from_domains must be a list of domain names' })
      .min(1, 'from_domains must name at least one domain')
      .max(MAX_FROM_DOMAINS, `from_domains may name at most ${MAX_FROM_DOMAINS} domains`),
  })
  .strict();

type RelayConfig = Pick<Config, 'secret' | 'DNS_SERVERS' | 'ALLOW_PRIVATE_SMTP_RELAYS'>;

/** Refuses a host that is, or resolves to, an address that is not public (unless allowed). */
async function checkHost(config: RelayConfig, host: string): Promise<void> {
  if (config.ALLOW_PRIVATE_SMTP_RELAYS) return;
  try {
    await publicAddresses(config, host, PRIVATE_RELAY);
  } catch (err) {
    throw Validation.field(
      'url',
      err instanceof PrivateHost
        ? 'url must not point to a private, loopback or link-local address'
        : 'url host could not be resolved',
    );
  }
}

export async function add(db: Db, config: RelayConfig, accountId: string, input: unknown): Promise<Relay> {
  const { name, url, from_domains } = parseInput(NewRelay, input);
  const domains = [...new Set(from_domains)];
  await checkHost(config, url.host);
  const id = await inTransaction(db, async (trx) => {
    const taken = await q.domainsTaken(trx, accountId, domains);
    if (taken.length > 0)
      throw new Conflict(
        `${taken[0]!.domain} is sent through the relay "${taken[0]!.name}" already: one relay per From domain`,
      );
    const row = await q.insertRelay(trx, {
      account_id: accountId,
      name,
      host: url.host,
      port: url.port,
      secure: url.secure,
      has_credentials: url.has_credentials,
      url_sealed: sealSecret(config.secret, url.url),
    });
    if (!row) throw new Conflict(`The account already has a relay named "${name}"`);
    await q.insertDomains(trx, accountId, row.id, domains);
    return row.id;
  });
  return get(db, accountId, id);
}

export async function list(db: Db, accountId: string): Promise<Relay[]> {
  return (await q.listRelays(db, accountId)).map(shape);
}

export async function get(db: Db, accountId: string, id: string): Promise<Relay> {
  const row = await q.findRelay(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return shape(row);
}

/** Deletes the relay; the transport forgets it (its connections close), so its domains go the default way. */
export async function remove(db: Db, transport: MailTransport, accountId: string, id: string): Promise<void> {
  if (!(await q.removeRelay(db, accountId, id))) throw new NotFound(NOT_FOUND);
  transport.dropRelay?.(id);
}

/** The relay that carries the account's mail from this From address, if one lists its domain. */
export async function relayFor(db: Db, accountId: string, fromAddress: string): Promise<string | undefined> {
  const domain = domainOfAddress(fromAddress);
  return domain ? q.relayForDomain(db, accountId, domain) : undefined;
}

/**
 * The relay's URL with its credentials, for the transport only; undefined when the account has no such
 * relay or it was sealed under another MAILGROVE_SECRET (the mail then goes the default way).
 */
export async function relayUrl(
  db: Db,
  config: Pick<Config, 'secret'>,
  accountId: string,
  id: string,
): Promise<string | undefined> {
  const sealed = await q.sealedUrl(db, accountId, id);
  if (!sealed) return undefined;
  try {
    return openSecret(config.secret, sealed);
  } catch {
    return undefined;
  }
}

export const TestInput = z.object({ to: Email }).strict();

export interface TestOutcome {
  ok: boolean;
  message: string;
}

/**
 * "Send a test": one short message to `to` through this relay, from no-reply at its first domain. The
 * answer is the relay's reply or the error, with the URL's user name and password blanked out.
 */
export async function sendTest(
  db: Db,
  config: Pick<Config, 'secret'>,
  transport: MailTransport,
  accountId: string,
  id: string,
  input: unknown,
): Promise<TestOutcome> {
  const { to } = parseInput(TestInput, input);
  const relay = await get(db, accountId, id);
  const url = await relayUrl(db, config, accountId, id);
  if (!url)
    return {
      ok: false,
      message: 'The relay cannot be read: it was saved under another MAILGROVE_SECRET; add it again',
    };
  const result = await transport.send({
    accountId,
    from: `no-reply@${relay.from_domains[0]}`,
    to,
    subject: `Test message through ${relay.name}`,
    text: `This message came through the SMTP relay "${relay.name}" (${relay.host}:${relay.port}).`,
    html: `<p>This message came through the SMTP relay "${escapeHtml(relay.name)}" (${relay.host}:${relay.port}).</p>`,
    relayId: id,
  });
  if (result.ok) return { ok: true, message: result.response ?? 'Accepted' };
  return { ok: false, message: withoutCredentials(result.error, url) };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An error text with the URL's user name and password (raw and decoded) replaced by "***". */
export function withoutCredentials(text: string, rawUrl: string): string {
  const url = new URL(rawUrl);
  const secrets = [url.username, url.password, decodeURIComponent(url.username), decodeURIComponent(url.password)]
    .filter((s) => s.length >= 3)
    .sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out.slice(0, 1000);
}
