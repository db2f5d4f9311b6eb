// Applying bounce and complaint reports to an account (DESIGN §6): a hard bounce makes the subscriber
// `bounced` (subscriber.bounced + email.bounced), a complaint `complained` (subscriber.complained), a soft
// bounce is only counted; each lands on the campaign's ledger row, so campaign stats include it.
// Providers retry their webhooks: a repeated report changes nothing and writes no second event.
import { sql } from 'kysely';
import type { Db } from '../db/client.ts';
import type { SubscriberRow } from '../db/schema.ts';
import type { BounceReport, Provider } from '../mail/bounceFormats.ts';
import { NotFound } from './errors.ts';
import { recordEvents, type EventInput } from './events.ts';
import { publicView } from './subscribers.ts';

export interface Outcome {
  received: number;
  hard: number;
  soft: number;
  complaints: number;
  /** addresses that are not subscribers of this account */
  unknown: number;
}

/** The account a bounce-hook URL secret belongs to; NotFound (the route answers 404) otherwise. */
export async function accountForSecret(db: Db, secret: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{8,128}$/.test(secret)) throw new NotFound('Not found');
  const row = await db.selectFrom('accounts').select('id').where('bounce_secret', '=', secret).executeTakeFirst();
  if (!row) throw new NotFound('Not found');
  return row.id;
}

export async function recordConfirmation(db: Db, accountId: string, provider: Provider, c: { subscribe_url: string; topic_arn?: string }): Promise<void> {
  await db.insertInto('bounce_hook_confirmations').values({ account_id: accountId, provider, subscribe_url: c.subscribe_url, topic_arn: c.topic_arn ?? null }).execute();
}

export async function apply(db: Db, accountId: string, provider: Provider, reports: BounceReport[]): Promise<Outcome> {
  const outcome: Outcome = { received: reports.length, hard: 0, soft: 0, complaints: 0, unknown: 0 };
  if (reports.length === 0) return outcome;
  await db.transaction().execute(async (trx) => {
    const events: EventInput[] = [];
    for (const r of reports) {
      const sub = await trx
        .selectFrom('subscribers')
        .selectAll()
        .where('account_id', '=', accountId)
        .where((eb) => eb(eb.fn('lower', ['email']), '=', r.email.trim().toLowerCase()))
        .forUpdate()
        .executeTakeFirst();
      if (!sub) {
        outcome.unknown++;
        continue;
      }
      const row = await ledgerRow(trx, accountId, sub.id, r.message_id);
      if (r.kind === 'soft') {
        outcome.soft++;
        if (row) await trx.updateTable('campaign_recipients').set((eb) => ({ soft_bounces: eb('soft_bounces', '+', 1) })).where('id', '=', row.id).execute();
        continue;
      }
      const hard = r.kind === 'hard';
      hard ? outcome.hard++ : outcome.complaints++;
      const firstOnRow = row ? await markRow(trx, row.id, hard ? 'bounced_at' : 'complained_at') : false;
      const after = await changeStatus(trx, sub, hard ? 'bounced' : 'complained');
      const origin = { campaign_id: row?.campaign_id ?? null, provider, detail: r.detail ?? null };
      if (after) events.push({ type: hard ? 'subscriber.bounced' : 'subscriber.complained', subscriberId: sub.id, data: { subscriber: publicView(after), ...origin } });
      if (hard && (firstOnRow || (!row && after))) {
        events.push({ type: 'email.bounced', subscriberId: sub.id, data: { ...origin, subscriber: { id: sub.id, email: sub.email }, message_id: row?.message_id ?? r.message_id ?? null, type: 'hard' } });
      }
    }
    await recordEvents(trx, accountId, events);
  });
  return outcome;
}

/** The ledger row the report is about: by our Message-ID when given, else the latest one sent to the subscriber. */
async function ledgerRow(trx: Db, accountId: string, subscriberId: string, messageId?: string) {
  const base = trx.selectFrom('campaign_recipients').select(['id', 'campaign_id', 'message_id']).where('account_id', '=', accountId).where('subscriber_id', '=', subscriberId);
  const byId = messageId ? await base.where('message_id', '=', messageId).executeTakeFirst() : undefined;
  return byId ?? (await base.where('state', '=', 'sent').orderBy('sent_at', 'desc').limit(1).executeTakeFirst());
}

/** Sets the column once; true when this report was the first to set it. `column` is one of two literals. */
async function markRow(trx: Db, id: number, column: 'bounced_at' | 'complained_at'): Promise<boolean> {
  const r = await trx
    .updateTable('campaign_recipients')
    .set({ [column]: sql`now()` })
    .where('id', '=', id)
    .where(column, 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** bounced: from active or unsubscribed; complained: from anything. Undefined when nothing changed. */
async function changeStatus(trx: Db, sub: SubscriberRow, to: 'bounced' | 'complained'): Promise<SubscriberRow | undefined> {
  if (sub.status === to || (to === 'bounced' && sub.status === 'complained')) return undefined;
  return trx.updateTable('subscribers').set({ status: to, updated_at: new Date() }).where('id', '=', sub.id).returningAll().executeTakeFirstOrThrow();
}
