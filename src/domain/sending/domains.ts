// Sending domains of an account: the domains it sends from, each proven by a DKIM key of the account's
// own. Adding a domain makes its key (private half sealed under the instance secret, never returned) and
// answers the DNS records to publish; verify looks them up through the product's resolver and records
// the outcome; a daily re-check (jobs/scheduler.ts) notices records that went away. Two accounts may add
// the same domain: each publishes and proves its own key, nothing is shared.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { DomainCheck, SendingDomainStatus } from '../../db/schema/sending.ts';
import { dnsResolver } from '../../mail/dns.ts';
import { sealSecret } from '../../secret.ts';
import { Conflict, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { z } from 'zod';
import { checkDomain, statusOf, type CheckOutcome } from './checks.ts';
import { newDkimKey } from './keys.ts';
import { DomainName } from './names.ts';
import * as q from './queries.ts';
import { dnsRecords, type DnsRecord } from './records.ts';

export const NOT_FOUND = 'Sending domain not found';
/** How often every domain is looked up again. */
export const RECHECK_MS = 24 * 3_600_000;

type RecordConfig = Pick<Config, 'SMTP_EHLO_NAME' | 'publicUrl'>;

export interface SendingDomain {
  id: string;
  domain: string;
  status: SendingDomainStatus;
  selector: string;
  dns_records: DnsRecord[];
  checks: DomainCheck[];
  checked_at: string | null;
  verified_at: string | null;
  created_at: string;
}

export interface Verification {
  id: string;
  domain: string;
  status: SendingDomainStatus;
  checks: CheckOutcome[];
}

function shape(config: RecordConfig, row: q.DomainRow): SendingDomain {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    selector: row.selector,
    dns_records: dnsRecords(config, row),
    checks: row.checks ?? [],
    checked_at: row.checked_at?.toISOString() ?? null,
    verified_at: row.verified_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

export const NewDomain = z.object({ domain: DomainName }).strict();

export async function add(
  db: Db,
  config: RecordConfig & Pick<Config, 'secret'>,
  accountId: string,
  input: unknown,
): Promise<SendingDomain> {
  const { domain } = parseInput(NewDomain, input);
  const key = await newDkimKey();
  const row = await q.insertDomain(db, {
    account_id: accountId,
    domain,
    selector: key.selector,
    public_key: key.publicKey,
    private_key_sealed: sealSecret(config.secret, key.privateKey),
  });
  if (!row) throw new Conflict(`The account already has the sending domain ${domain}`);
  return shape(config, row);
}

export async function list(db: Db, config: RecordConfig, accountId: string): Promise<SendingDomain[]> {
  return (await q.listDomains(db, accountId)).map((row) => shape(config, row));
}

export async function get(db: Db, config: RecordConfig, accountId: string, id: string): Promise<SendingDomain> {
  const row = await q.findDomain(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return shape(config, row);
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  if (!(await q.removeDomain(db, accountId, id))) throw new NotFound(NOT_FOUND);
}

async function checkAndSave(
  db: Db,
  config: RecordConfig & Pick<Config, 'DNS_SERVERS'>,
  row: q.DomainRow,
): Promise<Verification | undefined> {
  const checks = await checkDomain(dnsResolver(config), config, row);
  const status = statusOf(checks, row.status === 'verified' || row.verified_at !== null);
  const stored = checks.map(({ purpose, ok, found }) => ({ purpose, ok, found }));
  const saved = await q.saveCheck(db, row.account_id, row.id, {
    status,
    checks: stored,
    verified: status === 'verified',
  });
  if (!saved) return undefined; // deleted meanwhile
  return { id: row.id, domain: row.domain, status, checks };
}

/** Looks the domain's records up now and records the outcome. */
export async function verify(
  db: Db,
  config: RecordConfig & Pick<Config, 'DNS_SERVERS'>,
  accountId: string,
  id: string,
): Promise<Verification> {
  const row = await q.findDomain(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  const done = await checkAndSave(db, config, row);
  if (!done) throw new NotFound(NOT_FOUND);
  return done;
}

/**
 * The daily re-check: up to `limit` domains (of any account) not looked up for RECHECK_MS, checked again.
 * Returns how many were checked; the scheduler calls it again while it finds some.
 */
export async function recheckDue(
  db: Db,
  config: RecordConfig & Pick<Config, 'DNS_SERVERS'>,
  limit = 20,
): Promise<number> {
  const due = await q.claimDue(db, RECHECK_MS, limit);
  for (const row of due) await checkAndSave(db, config, row);
  return due.length;
}
