// SQL for the per-recipient send ledger (campaign_recipients), the campaign's stored links and the send
// workers' heartbeats. Every statement works on a whole batch: never a query per recipient.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { DB } from '../../db/schema.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';

/** A condition on the subscribers table (a segment's members), as the segments context builds it. */
export type SubscriberWhere = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

export interface Claimed {
  id: number;
  subscriber_id: string;
  email: string;
  attempts: number;
  /** the subscriber as it is now (what templates see); status decides whether they still get it */
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  custom_fields: Record<string, unknown>;
  created_at: Date;
}

export type Outcome =
  | { id: number; state: 'sent'; message_id: string }
  | { id: number; state: 'failed' | 'skipped'; error: string }
  | { id: number; state: 'queued'; error: string; retry_in_ms: number; release?: boolean };

export async function replaceLinks(trx: Db, campaignId: string, urls: string[]): Promise<void> {
  await trx.deleteFrom('campaign_links').where('campaign_id', '=', campaignId).execute();
  if (urls.length > 0)
    await trx
      .insertInto('campaign_links')
      .values(urls.map((url, idx) => ({ campaign_id: campaignId, idx, url })))
      .execute();
}

export function links(db: Db, campaignId: string) {
  return db.selectFrom('campaign_links').select(['idx', 'url']).where('campaign_id', '=', campaignId).execute();
}

export async function existingSegments(trx: Db, accountId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .selectFrom('segments')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((r) => r.id);
}

/** One INSERT … SELECT: the active members of the campaign's groups or of `inSegments`, each once. */
export async function freezeAudience(trx: Db, c: CampaignRow, inSegments: SubscriberWhere | undefined): Promise<void> {
  await trx
    .insertInto('campaign_recipients')
    .columns(['campaign_id', 'account_id', 'subscriber_id', 'email'])
    .expression(
      trx
        .selectFrom('subscribers')
        .select([
          sql<string>`${c.id}::uuid`.as('campaign_id'),
          sql<string>`${c.account_id}::uuid`.as('account_id'),
          'subscribers.id',
          'subscribers.email',
        ])
        .where('subscribers.account_id', '=', c.account_id)
        .where('subscribers.status', '=', 'active')
        .where((eb) =>
          eb.or([
            ...(c.group_ids.length > 0
              ? [
                  eb.exists(
                    eb
                      .selectFrom('subscriber_groups')
                      .select(sql.lit(1).as('one'))
                      .whereRef('subscriber_groups.subscriber_id', '=', 'subscribers.id')
                      .where('subscriber_groups.group_id', 'in', c.group_ids),
                  ),
                ]
              : []),
            ...(inSegments ? [inSegments(eb)] : []),
          ]),
        )
        .orderBy('subscribers.id'),
    )
    .execute();
}

export async function hasSuppressions(trx: Db, accountId: string): Promise<boolean> {
  const any = await trx
    .selectFrom('suppressions')
    .select('email_hash')
    .where('account_id', '=', accountId)
    .limit(1)
    .executeTakeFirst();
  return any !== undefined;
}

export async function suppressionHashes(trx: Db, accountId: string): Promise<Set<string>> {
  const rows = await trx.selectFrom('suppressions').select('email_hash').where('account_id', '=', accountId).execute();
  return new Set(rows.map((r) => r.email_hash));
}

export function frozenAddresses(trx: Db, campaignId: string) {
  return trx.selectFrom('campaign_recipients').select(['id', 'email']).where('campaign_id', '=', campaignId).execute();
}

export async function removeRecipients(trx: Db, ids: number[]): Promise<void> {
  if (ids.length > 0) await trx.deleteFrom('campaign_recipients').where('id', 'in', ids).execute();
}

/** Cancel: nobody still queued gets the campaign. Rows a worker already holds finish their batch. */
export async function skipQueued(trx: Db, campaignId: string, reason: string): Promise<void> {
  await trx
    .updateTable('campaign_recipients')
    .set({ state: 'skipped', last_error: reason })
    .where('campaign_id', '=', campaignId)
    .where('state', '=', 'queued')
    .execute();
}

/**
 * Claims up to `limit` due queued rows of a campaign that is still sending, marks them 'sending' for this
 * worker and commits (one statement = its own transaction) before the caller talks SMTP. Returns each
 * row with its subscriber's current fields, so a batch costs one round trip.
 */
export async function claim(db: Db, campaignId: string, workerId: string, limit: number): Promise<Claimed[]> {
  const r = await sql<Claimed>`
    update campaign_recipients r set state = 'sending', worker_id = ${workerId}::uuid, attempts = r.attempts + 1
    from (
      select cr.id, s.first_name, s.last_name, s.phone, s.status, s.custom_fields, s.created_at
      from campaign_recipients cr join subscribers s on s.id = cr.subscriber_id
      where cr.campaign_id = ${campaignId}::uuid and cr.state = 'queued'
        and (cr.next_attempt_at is null or cr.next_attempt_at <= now())
        and exists (select 1 from campaigns c where c.id = cr.campaign_id and c.status = 'sending')
      order by cr.id
      limit ${limit}
      for update of cr skip locked
    ) picked
    where r.id = picked.id
    returning r.id, r.subscriber_id, r.email, r.attempts, picked.first_name, picked.last_name, picked.phone, picked.status, picked.custom_fields, picked.created_at`.execute(
    db,
  );
  return r.rows.sort((a, b) => a.id - b.id);
}

/**
 * Writes a batch's outcomes and its email.sent events in one statement. Only rows this worker still holds
 * change: a row the recovery marked 'interrupted' meanwhile stays so (counted, never re-sent).
 * `release` puts a row back untouched (it was never handed to SMTP) without counting the attempt.
 */
export async function record(db: Db, workerId: string, outcomes: Outcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const col = <T>(f: (o: Outcome) => T) => outcomes.map(f);
  const r = await sql<{ n: number }>`
    with v as (
      select * from unnest(
        ${col((o) => o.id)}::bigint[], ${col((o) => o.state)}::text[], ${col((o) => (o.state === 'sent' ? o.message_id : null))}::text[],
        ${col((o) => (o.state === 'sent' ? null : o.error))}::text[], ${col((o) => (o.state === 'queued' ? o.retry_in_ms : 0))}::int[],
        ${col((o) => (o.state === 'queued' && o.release ? 1 : 0))}::int[]
      ) as t(id, state, message_id, error, retry_ms, release)
    ), upd as (
      update campaign_recipients r set
        state = v.state, worker_id = null, message_id = coalesce(v.message_id, r.message_id), last_error = v.error,
        sent_at = case when v.state = 'sent' then now() else r.sent_at end,
        attempts = r.attempts - v.release,
        next_attempt_at = case when v.state = 'queued' and v.retry_ms > 0 then now() + v.retry_ms * interval '1 millisecond' else null end
      from v
      where r.id = v.id and r.state = 'sending' and r.worker_id = ${workerId}::uuid
      returning r.account_id, r.campaign_id, r.subscriber_id, r.email, r.state, r.message_id
    ), ev as (
      insert into events (account_id, type, subscriber_id, data)
      select account_id, 'email.sent', subscriber_id,
        jsonb_build_object('campaign_id', campaign_id, 'subscriber', jsonb_build_object('id', subscriber_id, 'email', email), 'message_id', message_id)
      from upd where state = 'sent'
    )
    select count(*)::int as n from upd`.execute(db);
  return r.rows[0]?.n ?? 0;
}

/** 'sending' → 'sent' when nobody is queued or in flight; undefined when not (or already done). */
export function markSentIfDone(trx: Db, campaignId: string) {
  return trx
    .updateTable('campaigns')
    .set({ status: 'sent', finished_at: new Date(), updated_at: new Date() })
    .where('id', '=', campaignId)
    .where('status', '=', 'sending')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('campaign_recipients')
            .select(sql.lit(1).as('one'))
            .where('campaign_id', '=', campaignId)
            .where('state', 'in', ['queued', 'sending']),
        ),
      ),
    )
    .returning(['id', 'name', 'account_id'])
    .executeTakeFirst();
}

/**
 * Crash rule: rows left 'sending' by a worker that no longer heartbeats (or, with `allButMe`, by any other
 * worker: PGlite allows one process, so at its start every such row is orphaned) become 'interrupted'.
 * SMTP may have accepted them; a duplicate campaign email costs more than a missing one.
 */
export async function interruptOrphans(
  db: Db,
  opts: { leaseMs: number; me: string; allButMe?: boolean },
): Promise<number> {
  const r = await sql<{ n: number }>`
    with upd as (
      update campaign_recipients set state = 'interrupted', worker_id = null,
        last_error = 'Interrupted: the worker stopped mid-send; not sent again to avoid a duplicate'
      where state = 'sending' and worker_id is distinct from ${opts.me}::uuid
        and (${opts.allButMe ?? false} or worker_id is null or worker_id not in (
          select id from send_workers where heartbeat_at > now() - ${opts.leaseMs} * interval '1 millisecond'))
      returning 1
    ) select count(*)::int as n from upd`.execute(db);
  return r.rows[0]?.n ?? 0;
}

export async function heartbeat(db: Db, workerId: string): Promise<void> {
  await sql`insert into send_workers (id, heartbeat_at) values (${workerId}::uuid, now())
    on conflict (id) do update set heartbeat_at = now()`.execute(db);
}

export async function retireWorker(db: Db, workerId: string, leaseMs: number): Promise<void> {
  await sql`delete from send_workers where id = ${workerId}::uuid or heartbeat_at < now() - ${leaseMs * 10} * interval '1 millisecond'`.execute(
    db,
  );
}

/** Campaigns currently sending, oldest first (what the workers have to do). */
export async function sendingCampaigns(db: Db, limit = 50): Promise<{ id: string; account_id: string }[]> {
  return db
    .selectFrom('campaigns')
    .select(['id', 'account_id'])
    .where('status', '=', 'sending')
    .orderBy('started_at')
    .limit(limit)
    .execute();
}
