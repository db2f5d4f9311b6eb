// SQL for forms, pending double opt-in signups and form signups: one function per query. Dashboard/API
// reads filter by accountId; the public pages find a form by id alone and then use its account_id.
import { sql, type Insertable, type Updateable } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { FormsTable, PendingSignupData } from '../../db/schema/forms.ts';

const FORM_COLUMNS = [
  'id',
  'account_id',
  'name',
  'type',
  'group_ids',
  'double_opt_in',
  'fields',
  'success_message',
  'redirect_url',
  'active',
  'views',
  'submissions',
  'confirmations',
  'created_at',
  'updated_at',
  'confirmation_subject',
  'confirmation_format',
  'confirmation_source',
  'confirmation_html',
  'slug',
  'design',
] as const;

export function insertForm(db: Db, row: Insertable<FormsTable>) {
  return db.insertInto('forms').values(row).returning(FORM_COLUMNS).executeTakeFirstOrThrow();
}

const forms = ownedRows('forms', FORM_COLUMNS);
export const findById = forms.find;

export const page = forms.page;

export const count = forms.count;

export function update(db: Db, accountId: string, id: string, changes: Updateable<FormsTable>) {
  return db
    .updateTable('forms')
    .set({ ...changes, updated_at: new Date() })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(FORM_COLUMNS)
    .executeTakeFirst();
}

export const remove = forms.remove;

/** A form's public address: its id, or its slug (any case). */
export type PublicRef = string | { slug: string };

/** Public: an active form by id or slug, counting one view in the same statement. */
export function viewActive(db: Db, ref: PublicRef) {
  return db
    .updateTable('forms')
    .set({ views: sql`views + 1` })
    .$if(typeof ref === 'string', (qb) => qb.where('id', '=', ref as string))
    .$if(typeof ref !== 'string', (qb) => qb.where(sql`lower(slug)`, '=', (ref as { slug: string }).slug.toLowerCase()))
    .where('active', '=', true)
    .returning(FORM_COLUMNS)
    .executeTakeFirst();
}

/** Public: an active form by id or slug. */
export function findActive(db: Db, ref: PublicRef) {
  return db
    .selectFrom('forms')
    .select(FORM_COLUMNS)
    .$if(typeof ref === 'string', (qb) => qb.where('id', '=', ref as string))
    .$if(typeof ref !== 'string', (qb) => qb.where(sql`lower(slug)`, '=', (ref as { slug: string }).slug.toLowerCase()))
    .where('active', '=', true)
    .executeTakeFirst();
}

export async function countSubmission(db: Db, accountId: string, formId: string): Promise<void> {
  await db
    .updateTable('forms')
    .set({ submissions: sql`submissions + 1` })
    .where('account_id', '=', accountId)
    .where('id', '=', formId)
    .execute();
}

export async function countConfirmation(db: Db, accountId: string, formId: string): Promise<void> {
  await db
    .updateTable('forms')
    .set({ confirmations: sql`confirmations + 1` })
    .where('account_id', '=', accountId)
    .where('id', '=', formId)
    .execute();
}

export async function recordSignup(db: Db, accountId: string, formId: string, subscriberId: string): Promise<void> {
  await db
    .insertInto('form_signups')
    .values({ form_id: formId, subscriber_id: subscriberId, account_id: accountId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export function signups(db: Db, accountId: string, formId: string, limit: number, offset: number) {
  return db
    .selectFrom('form_signups as fs')
    .innerJoin('subscribers as s', 's.id', 'fs.subscriber_id')
    .select([
      's.id',
      's.email',
      's.first_name',
      's.last_name',
      's.status',
      's.created_at',
      'fs.created_at as signed_up_at',
    ])
    .where('fs.account_id', '=', accountId)
    .where('fs.form_id', '=', formId)
    .orderBy('fs.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countSignups(db: Db, accountId: string, formId: string): Promise<number> {
  const row = await db
    .selectFrom('form_signups')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('form_id', '=', formId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The unconfirmed signup of (form, address), created or refreshed with new data and expiry. Returns the
 * previous last_sent_at, so the caller can decide whether to send the confirmation again.
 */
export function upsertPending(
  db: Db,
  p: { accountId: string; formId: string | null; email: string; data: PendingSignupData; expiresAt: Date },
) {
  return db
    .insertInto('pending_signups')
    .values({
      account_id: p.accountId,
      form_id: p.formId,
      email: p.email,
      data: JSON.stringify(p.data),
      expires_at: p.expiresAt,
    })
    .onConflict((oc) =>
      (p.formId === null
        ? oc
            .expression(sql`account_id, lower(email)`)
            .where('form_id', 'is', null)
            .where('confirmed_at', 'is', null)
        : oc.expression(sql`form_id, lower(email)`).where('confirmed_at', 'is', null)
      ).doUpdateSet({ email: p.email, data: JSON.stringify(p.data), expires_at: p.expiresAt }),
    )
    .returning(['id', 'expires_at', 'last_sent_at'])
    .executeTakeFirstOrThrow();
}

export async function markSent(db: Db, id: string): Promise<void> {
  await db.updateTable('pending_signups').set({ last_sent_at: new Date() }).where('id', '=', id).execute();
}

/** Unconfirmed signups whose links have all expired are only clutter holding an address: drop them. */
export async function purgeExpired(db: Db, accountId: string, formId: string | null): Promise<void> {
  await db
    .deleteFrom('pending_signups')
    .where('account_id', '=', accountId)
    .$if(formId === null, (qb) => qb.where('form_id', 'is', null))
    .$if(formId !== null, (qb) => qb.where('form_id', '=', formId!))
    .where('confirmed_at', 'is', null)
    .where('expires_at', '<', new Date())
    .execute();
}

export function findPending(db: Db, id: string) {
  return db.selectFrom('pending_signups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the signup confirmed once; undefined when another request confirmed it first. */
export function markConfirmed(db: Db, id: string, subscriberId: string) {
  return db
    .updateTable('pending_signups')
    .set({ confirmed_at: new Date(), subscriber_id: subscriberId, data: '{}' }) // the data now lives in subscribers
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
}

/** Who a form's confirmation mail comes from: the account's sender defaults, its name otherwise. */
export function sender(db: Db, accountId: string) {
  return db
    .selectFrom('accounts')
    .select(['name', 'default_from_name', 'default_from_email', 'default_reply_to'])
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

/** forget_subscriber: every pending signup of the address and the subscriber's signup records. */
export async function eraseAddress(db: Db, accountId: string, email: string, subscriberId: string): Promise<void> {
  await db
    .deleteFrom('pending_signups')
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.trim().toLowerCase()))
    .execute();
  await db
    .deleteFrom('pending_signups')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .execute();
  await db
    .deleteFrom('form_signups')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .execute();
}
