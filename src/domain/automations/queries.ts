// SQL for automations, the emails their runs send (automation_emails and their link sets) and the rows of
// other contexts an automation's definition and steps look at: one function per query. Reads that answer
// an account filter by accountId; the run worker finds rows by their own ids.
import { sql, type Expression, type ExpressionBuilder, type Insertable, type SqlBool, type Updateable } from 'kysely';
import type { Db } from '../../db/client.ts';
import { ownedRows } from '../../db/owned.ts';
import type { AutomationEmailsTable, AutomationsTable } from '../../db/schema/automations.ts';
import type { DB } from '../../db/schema.ts';
import { engagementCounts } from '../campaigns/stats.ts';

type WhereSubscriber = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

// ---- automations ----

export function insertAutomation(db: Db, row: Insertable<AutomationsTable>) {
  return db.insertInto('automations').values(row).returningAll().executeTakeFirstOrThrow();
}

const automations = ownedRows('automations');
export const findAutomation = automations.find;

/** The automation locked for a change that must not race a run reading its steps. */
export function lockAutomation(trx: Db, accountId: string, id: string) {
  return trx
    .selectFrom('automations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** The run worker's read: by id alone, the run already names its account. */
export function automationById(db: Db, id: string) {
  return db.selectFrom('automations').selectAll().where('id', '=', id).executeTakeFirst();
}

export const automationPage = automations.page;

export const countAutomations = automations.count;

export async function updateAutomation(trx: Db, id: string, changes: Updateable<AutomationsTable>): Promise<void> {
  await trx.updateTable('automations').set(changes).where('id', '=', id).execute();
}

export const deleteAutomation = automations.remove;

export type Counter = 'runs_completed' | 'runs_canceled' | 'runs_failed' | 'emails_sent';

export async function addToCounter(trx: Db, automationId: string, counter: Counter, n = 1): Promise<void> {
  await trx
    .updateTable('automations')
    .set((eb) => ({ [counter]: eb(counter, '+', n) }))
    .where('id', '=', automationId)
    .execute();
}

// ---- the emails runs send ----

/** Stores a link set under its content key; a set already stored under the key is kept as it is. */
export async function insertLinks(trx: Db, automationId: string, key: string, links: string[]): Promise<void> {
  await trx
    .insertInto('automation_links')
    .values(links.map((url, idx) => ({ automation_id: automationId, links_key: key, idx, url })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The email of (run, step): a new row, or the one a retry of the same step reuses, back to 'sending'. */
export async function upsertEmail(
  trx: Db,
  row: Insertable<AutomationEmailsTable> & { links_key: string | null; message_id: string },
): Promise<string> {
  const { id } = await trx
    .insertInto('automation_emails')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'step'])
        .doUpdateSet({ state: 'sending', links_key: row.links_key, message_id: row.message_id }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function updateEmail(trx: Db, id: string, changes: Updateable<AutomationEmailsTable>): Promise<void> {
  await trx.updateTable('automation_emails').set(changes).where('id', '=', id).execute();
}

export async function interruptEmail(trx: Db, runId: string, step: string): Promise<void> {
  await trx
    .updateTable('automation_emails')
    .set({ state: 'interrupted' })
    .where('run_id', '=', runId)
    .where('step', '=', step)
    .where('state', '=', 'sending')
    .execute();
}

export function emailCounts(db: Db, accountId: string, automationIds: string[]) {
  return db
    .selectFrom('automation_emails')
    .select(['automation_id', ...engagementCounts()])
    .where('account_id', '=', accountId)
    .where('automation_id', 'in', automationIds)
    .groupBy('automation_id')
    .execute();
}

/** Per send_email step of one automation: emails sent and failed, and their engagement counted as campaigns count it. */
export function emailCountsByStep(db: Db, accountId: string, automationId: string) {
  return db
    .selectFrom('automation_emails')
    .select([
      'step',
      sql<number>`count(*) filter (where state = 'sent')::int`.as('sent'),
      sql<number>`count(*) filter (where state = 'failed')::int`.as('failed'),
      ...engagementCounts(),
    ])
    .where('account_id', '=', accountId)
    .where('automation_id', '=', automationId)
    .groupBy('step')
    .execute();
}

// ---- rows of other contexts that definitions and steps look at ----

export async function existsInAccount(
  db: Db,
  table: 'groups' | 'forms' | 'campaigns',
  accountId: string,
  id: string,
): Promise<boolean> {
  return !!(await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst());
}

export function accountById(db: Db, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export function subscriberOf(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
}

export function subscriberIdentity(db: Db, id: string) {
  return db.selectFrom('subscribers').select(['id', 'email']).where('id', '=', id).executeTakeFirstOrThrow();
}

export async function subscriberMatches(
  db: Db,
  accountId: string,
  id: string,
  where: WhereSubscriber,
): Promise<boolean> {
  const row = await db
    .selectFrom('subscribers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where(where)
    .executeTakeFirst();
  return row !== undefined;
}
