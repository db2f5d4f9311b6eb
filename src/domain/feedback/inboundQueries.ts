// SQL of the mail that comes home (inbound.ts): the email a VERP token names, what a later report said on
// that email's row, and the record of every message taken (inbound_mail), with its retention.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { LateFeedback } from '../../db/schema/campaigns.ts';
import type { InboundMailTable } from '../../db/schema/mail.ts';
import type { SentEmail } from './bounces.ts';

/** One email a return path or unsubscribe address names, with what the bounce rules need of it. */
export type NamedEmail = SentEmail & {
  account_id: string;
  subscriber_id: string;
  email: string;
  feedback: LateFeedback | null;
};

export async function campaignEmail(db: Db, rowId: number): Promise<NamedEmail | undefined> {
  const r = await db
    .selectFrom('campaign_recipients')
    .select(['id', 'account_id', 'campaign_id', 'subscriber_id', 'email', 'message_id', 'feedback'])
    .where('id', '=', rowId)
    .executeTakeFirst();
  return (
    r && {
      table: 'campaign_recipients',
      id: Number(r.id),
      message_id: r.message_id,
      source: { campaign_id: r.campaign_id },
      account_id: r.account_id,
      subscriber_id: r.subscriber_id,
      email: r.email,
      feedback: r.feedback,
    }
  );
}

export async function automationEmail(db: Db, id: string): Promise<NamedEmail | undefined> {
  const r = await db
    .selectFrom('automation_emails as e')
    .innerJoin('subscribers as s', 's.id', 'e.subscriber_id')
    .select([
      'e.id',
      'e.account_id',
      'e.automation_id',
      'e.step',
      'e.run_id',
      'e.subscriber_id',
      's.email',
      'e.message_id',
      'e.feedback',
    ])
    .where('e.id', '=', id)
    .executeTakeFirst();
  return (
    r && {
      table: 'automation_emails',
      id: r.id,
      message_id: r.message_id,
      source: { automation_id: r.automation_id, step: r.step, run_id: r.run_id },
      account_id: r.account_id,
      subscriber_id: r.subscriber_id,
      email: r.email,
      feedback: r.feedback,
    }
  );
}

/** The email sent under this Message-ID (a campaign's ledger row first, then an automation email). */
export async function emailByMessageId(db: Db, messageId: string): Promise<NamedEmail | undefined> {
  const row = await db
    .selectFrom('campaign_recipients')
    .select('id')
    .where('message_id', '=', messageId)
    .limit(2)
    .execute();
  // a Message-ID that two rows share names neither
  if (row.length === 1) return campaignEmail(db, Number(row[0]!.id));
  if (row.length > 1) return undefined;
  const auto = await db
    .selectFrom('automation_emails')
    .select('id')
    .where('message_id', '=', messageId)
    .limit(2)
    .execute();
  return auto.length === 1 ? automationEmail(db, auto[0]!.id) : undefined;
}

export async function signupAccount(db: Db, signupId: string): Promise<string | undefined> {
  const r = await db.selectFrom('pending_signups').select('account_id').where('id', '=', signupId).executeTakeFirst();
  return r?.account_id;
}

export async function accountExists(db: Db, accountId: string): Promise<boolean> {
  return !!(await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst());
}

/** One received message as recorded: the table's row without what the database fills in. */
export type InboundRecord = Omit<InboundMailTable, 'id' | 'received_at'>;

export async function insertInbound(db: Db, r: InboundRecord): Promise<void> {
  await db.insertInto('inbound_mail').values(r).execute();
}

/** Unattributed mail older than `unmatchedDays` and the record of attributed mail older than `keptDays`. */
export async function purgeInbound(db: Db, unmatchedDays: number, keptDays: number): Promise<number> {
  const r = await db
    .deleteFrom('inbound_mail')
    .where((eb) =>
      eb.or([
        eb.and([
          eb('account_id', 'is', null),
          eb('received_at', '<', sql<Date>`now() - make_interval(days => ${unmatchedDays})`),
        ]),
        eb('received_at', '<', sql<Date>`now() - make_interval(days => ${keptDays})`),
      ]),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function unmatchedCount(db: Db): Promise<number> {
  const r = await db
    .selectFrom('inbound_mail')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listUnmatched(db: Db, limit: number, offset: number) {
  return db
    .selectFrom('inbound_mail')
    .select(['id', 'received_at', 'via', 'reason', 'mail_from', 'rcpt_to', 'subject', 'size'])
    .where('account_id', 'is', null)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function unmatchedRaw(db: Db, id: string): Promise<Buffer | null | undefined> {
  const r = await db
    .selectFrom('inbound_mail')
    .select('raw')
    .where('id', '=', id)
    .where('account_id', 'is', null)
    .executeTakeFirst();
  return r && r.raw;
}

/** The account's inbound mail of the last 30 days by outcome, and the last one received. */
export async function accountSummary(db: Db, accountId: string) {
  const rows = await db
    .selectFrom('inbound_mail')
    .select(['outcome', (eb) => eb.fn.countAll<string>().as('n'), (eb) => eb.fn.max('received_at').as('last')])
    .where('account_id', '=', accountId)
    .where('received_at', '>', sql<Date>`now() - interval '30 days'`)
    .groupBy('outcome')
    .execute();
  return rows.map((r) => ({ outcome: r.outcome, count: Number(r.n), last: r.last as Date | null }));
}

/** Late bounces and complaints of one campaign, newest first. */
export async function campaignFeedback(db: Db, accountId: string, campaignId: string, limit: number) {
  return db
    .selectFrom('campaign_recipients')
    .select(['subscriber_id', 'email', 'feedback', 'feedback_status', 'feedback_detail', 'feedback_at'])
    .where('account_id', '=', accountId)
    .where('campaign_id', '=', campaignId)
    .where('feedback_at', 'is not', null)
    .orderBy('feedback_at', 'desc')
    .limit(limit)
    .execute();
}
