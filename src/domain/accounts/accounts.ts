// Accounts (tenants) and their owners: created by operators (admin API, CLI) or the first dashboard visit.
// An account's subscriber_limit is its plan limit (spec "Subscriber count"). Every account has an owner
// from the moment it exists, so every API key has a user (spec "Test authentication" reports its UUID):
// the owner_email's user when one is given, otherwise the account's service user (serviceOwner).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import type { Account } from '../../db/schema.ts';
import { NotFound } from '../errors.ts';
import { storableString } from '../storable.ts';
import { int4, parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';
import { BlockingChecks, PostalAddress, TimeZone } from './profile.ts';

export const NewAccount = z.object({
  name: storableString().trim().min(1, 'Name is required').max(200),
  subscriber_limit: int4().optional(),
  owner_email: z.string().trim().max(254).pipe(z.email('A valid email address is required')).optional(),
  owner_name: storableString().trim().max(200).optional(),
});
export type NewAccount = z.input<typeof NewAccount>;

export const AccountSettings = z
  .object({
    name: storableString().trim().min(1).max(200),
    subscriber_limit: int4(),
    default_from_name: storableString().trim().max(200).nullable(),
    default_from_email: z.string().trim().max(254).pipe(z.email('A valid email address is required')).nullable(),
    default_reply_to: z.string().trim().max(254).pipe(z.email('A valid email address is required')).nullable(),
    tracking_enabled: z.boolean(),
    verify_emails: z.boolean(),
    timezone: TimeZone,
    postal_address: PostalAddress,
    blocking_checks: BlockingChecks,
  })
  .partial()
  .strict();
export type AccountSettings = z.input<typeof AccountSettings>;

export interface AccountWithOwner extends Account {
  owner: { id: string; idp_user_id: string; email: string };
}

/**
 * The owner of an account created without an owner email: a user no one signs in as. Its address is
 * under the reserved .invalid TLD (RFC 2606), so no mail reaches anyone and no provider vouches for it;
 * it has no password, and a `service|` identity is never linked to an OIDC sign-in, given a password by
 * an operator reset, or counted as the instance's first user.
 */
export function serviceOwner(accountId: string) {
  return {
    idp_user_id: `${repo.SERVICE_IDP_PREFIX}${accountId}`,
    email: `owner+${accountId}@mailgrove.invalid`,
    name: null,
    password_hash: null,
  };
}

export async function create(db: Db, input: unknown, defaultLimit: number): Promise<AccountWithOwner> {
  const a = parseInput(NewAccount, input);
  return inTransaction(db, async (trx) => {
    const account = await repo.insertAccount(trx, {
      name: a.name,
      subscriber_limit: a.subscriber_limit ?? defaultLimit,
    });
    const user = !a.owner_email
      ? await repo.insertUser(trx, serviceOwner(account.id))
      : ((await repo.userByEmail(trx, a.owner_email)) ??
        (await repo.insertUser(trx, {
          idp_user_id: `local|${randomUUID()}`,
          email: a.owner_email,
          name: a.owner_name ?? null,
        })));
    await repo.insertMembership(trx, account.id, user.id, 'owner');
    return { ...account, owner: { id: user.id, idp_user_id: user.idp_user_id, email: user.email } };
  });
}

export async function get(db: Db, accountId: string): Promise<Account> {
  const account = await repo.findAccount(db, accountId);
  if (!account) throw new NotFound('Account not found');
  return account;
}

export async function update(db: Db, accountId: string, input: unknown): Promise<Account> {
  const settings = parseInput(AccountSettings, input);
  const account = await repo.updateAccount(db, accountId, { ...settings, updated_at: new Date() });
  if (!account) throw new NotFound('Account not found');
  return account;
}

export function list(db: Db): Promise<Account[]> {
  return repo.listAccounts(db);
}
