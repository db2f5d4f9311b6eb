// SQL for campaigns, their stats and recipient lists, the captured outbox and the shared send-rate bucket;
// accountId always, except where a worker reads a campaign it found through the ledger.
import { sql, type Insertable, type Updateable } from 'kysely';
import { likePattern } from '../likePattern.ts';
import type { Db } from '../../db/client.ts';
import type { DB } from '../../db/schema.ts';
import type { CampaignRow, CampaignStatus } from '../../db/schema/campaigns.ts';

type CampaignChanges = Updateable<DB['campaigns']>;

export function insertCampaign(trx: Db, values: Insertable<DB['campaigns']>) {
  return trx.insertInto('campaigns').values(values).returningAll().executeTakeFirstOrThrow();
}

export function findCampaign(db: Db, accountId: string, id: string, forUpdate = false) {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .$if(forUpdate, (qb) => qb.forUpdate())
    .executeTakeFirst();
}

export async function campaignPage(
  db: Db,
  accountId: string,
  status: CampaignStatus | undefined,
  limit: number,
  offset: number,
): Promise<{ rows: CampaignRow[]; total: number }> {
  const [rows, { n }] = await Promise.all([
    newest(db, accountId, status, limit, offset),
    ofStatus(db, accountId, status)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(n) };
}

/** The account's campaigns, newest first, without their total. */
export function newest(db: Db, accountId: string, status: CampaignStatus | undefined, limit: number, offset = 0) {
  return ofStatus(db, accountId, status)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

function ofStatus(db: Db, accountId: string, status: CampaignStatus | undefined) {
  return db
    .selectFrom('campaigns')
    .where('account_id', '=', accountId)
    .$if(status !== undefined, (qb) => qb.where('status', '=', status!));
}

export function updateCampaign(trx: Db, accountId: string, id: string, changes: CampaignChanges) {
  return trx
    .updateTable('campaigns')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A state change of a campaign the caller has already found (and locked) in its account. */
export function setCampaign(trx: Db, id: string, changes: CampaignChanges) {
  return trx.updateTable('campaigns').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteCampaign(trx: Db, accountId: string, id: string): Promise<void> {
  await trx.deleteFrom('campaigns').where('account_id', '=', accountId).where('id', '=', id).execute();
}

/** The scheduled campaign due first, locked; SKIP LOCKED: two instances never take the same one. */
export function nextDue(trx: Db) {
  return trx
    .selectFrom('campaigns')
    .selectAll()
    .where('status', '=', 'scheduled')
    .where('scheduled_at', '<=', sql<Date>`now()`)
    .orderBy('scheduled_at')
    .limit(1)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** The next scheduled campaign whose time has come, not locked (the scheduler checks it before it locks it). */
export function peekDue(db: Db, except: string[]) {
  let q = db
    .selectFrom('campaigns')
    .selectAll()
    .where('status', '=', 'scheduled')
    .where('scheduled_at', '<=', sql<Date>`now()`);
  if (except.length > 0) q = q.where('id', 'not in', except);
  return q.orderBy('scheduled_at').limit(1).executeTakeFirst();
}

/** That campaign, locked, if it is still scheduled and unchanged since `updatedAt`; none if another holds it. */
export function lockDue(trx: Db, id: string, updatedAt: Date) {
  return trx
    .selectFrom('campaigns')
    .selectAll()
    .where('id', '=', id)
    .where('status', '=', 'scheduled')
    .where('updated_at', '=', updatedAt)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** For the send workers, which know a campaign by the ledger row they claimed, not by an account. */
export function campaignById(db: Db, id: string) {
  return db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

export async function campaignStatus(db: Db, id: string): Promise<CampaignStatus | undefined> {
  const r = await db.selectFrom('campaigns').select('status').where('id', '=', id).executeTakeFirst();
  return r?.status;
}

export function account(db: Db, accountId: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
}

export function findSubscriber(db: Db, accountId: string, by: { subscriber_id?: string; email?: string }) {
  return db
    .selectFrom('subscribers')
    .select(['id', 'email', 'first_name', 'last_name', 'phone', 'status', 'custom_fields', 'created_at'])
    .where('account_id', '=', accountId)
    .$if(by.subscriber_id !== undefined, (qb) => qb.where('id', '=', by.subscriber_id!))
    .$if(by.subscriber_id === undefined, (qb) =>
      qb.where((eb) => eb(eb.fn('lower', ['email']), '=', by.email!.toLowerCase())),
    )
    .executeTakeFirst();
}

/** A ledger row a person opened: an open no privacy proxy made, or a click (which a proxy does not make). */
export const HUMAN_OPENED = sql<boolean>`(opens > machine_opens or clicked_at is not null)`;

/** An email row's opens: at least one once it was opened, which a click implies. */
const OPENS = sql<number>`greatest(opens, (opened_at is not null)::int)`;

/**
 * What automation stats count off their email rows (automation_emails carries the ledger's engagement
 * columns): opens and clicks (total and unique), unsubscribes, bounces, complaints and soft bounces. A
 * click marks the email opened without adding to its opens (the pixel did not load: images off), so a row
 * counts at least one open once opened_at is set, and totals are never below their uniques. Campaign stats
 * count their ledger rows the same way, kept by the database (migration 20261127_1000_campaign_counts);
 * a test checks that the two agree.
 */
export function engagementCounts() {
  return [
    sql<number>`coalesce(sum(${OPENS}), 0)::int`.as('opens'),
    sql<number>`count(opened_at)::int`.as('unique_opens'),
    sql<number>`coalesce(sum(greatest(clicks, (clicked_at is not null)::int)), 0)::int`.as('clicks'),
    sql<number>`count(clicked_at)::int`.as('unique_clicks'),
    sql<number>`count(unsubscribed_at)::int`.as('unsubscribes'),
    sql<number>`count(bounced_at)::int`.as('bounces'),
    sql<number>`count(complained_at)::int`.as('complaints'),
    sql<number>`coalesce(sum(soft_bounces), 0)::int`.as('soft_bounces'),
  ] as const;
}

// each filter is a fixed expression over the ledger row (alias r), chosen from this whitelist by the zod enum
export const FILTERS = {
  sent: sql<boolean>`r.state = 'sent'`,
  failed: sql<boolean>`r.state = 'failed'`,
  opened: sql<boolean>`r.opened_at is not null`,
  unopened: sql<boolean>`r.state = 'sent' and r.opened_at is null`,
  clicked: sql<boolean>`r.clicked_at is not null`,
  unsubscribed: sql<boolean>`r.unsubscribed_at is not null`,
  bounced: sql<boolean>`r.bounced_at is not null`,
  complained: sql<boolean>`r.complained_at is not null`,
};
export type RecipientFilter = keyof typeof FILTERS;

/** One page of a campaign's ledger rows joined to their subscribers, in ledger order. */
export async function recipientPage(
  db: Db,
  accountId: string,
  campaignId: string,
  filter: RecipientFilter | undefined,
  limit: number,
  offset: number,
) {
  const base = db
    .selectFrom('campaign_recipients as r')
    .innerJoin('subscribers as s', 's.id', 'r.subscriber_id')
    .where('r.account_id', '=', accountId)
    .where('r.campaign_id', '=', campaignId)
    .$if(filter !== undefined, (qb) => qb.where(FILTERS[filter!]));
  const rows = await base
    .select([
      's.id',
      's.email',
      's.first_name',
      's.last_name',
      's.status',
      'r.state',
      'r.attempts',
      'r.message_id',
      'r.last_error',
      'r.sent_at',
      sql<number>`greatest(r.opens, (r.opened_at is not null)::int)`.as('opens'),
      'r.clicks',
      'r.opened_at',
      'r.clicked_at',
      'r.unsubscribed_at',
      'r.bounced_at',
      'r.complained_at',
      'r.smtp_code',
      'r.smtp_status',
      'r.smtp_reply',
      'r.failure',
      'r.variant',
    ])
    .orderBy('r.id')
    .limit(limit)
    .offset(offset)
    .execute();
  const { n } = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(n) };
}

const OUTBOX_SUMMARY = ['id', 'message_id', 'from_addr', 'to_addr', 'subject', 'created_at'] as const;

export async function outboxPage(db: Db, accountId: string, limit: number, offset: number, search?: string) {
  const base = db
    .selectFrom('outbox')
    .where('account_id', '=', accountId)
    .$if(!!search, (qb) =>
      qb.where((eb) =>
        eb.and(
          search!
            .split(/\s+/)
            .map((word) =>
              eb.or(
                (['to_addr', 'from_addr', 'subject'] as const).map((c) =>
                  eb(eb.fn('lower', [c]), 'like', likePattern(word)),
                ),
              ),
            ),
        ),
      ),
    );
  const [rows, count] = await Promise.all([
    base.select(OUTBOX_SUMMARY).orderBy('created_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: count.n };
}

export function outboxMessage(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('outbox')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
