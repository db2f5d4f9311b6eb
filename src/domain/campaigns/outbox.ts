// The captured mail of an account: without SMTP_URL the transport writes every message to the
// outbox table; the dashboard reads it here, newest first, always scoped by account.
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';

export interface OutboxPage {
  page: number;
  per_page: number;
}

const SUMMARY = ['id', 'message_id', 'from_addr', 'to_addr', 'subject', 'created_at'] as const;

export async function list(db: Db, accountId: string, { page, per_page }: OutboxPage) {
  const [messages, count] = await Promise.all([
    db.selectFrom('outbox').select(SUMMARY).where('account_id', '=', accountId).orderBy('created_at', 'desc').orderBy('id').limit(per_page).offset((page - 1) * per_page).execute(),
    db.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('account_id', '=', accountId).executeTakeFirstOrThrow(),
  ]);
  return { messages, meta: { current_page: page, last_page: Math.max(1, Math.ceil(count.n / per_page)), per_page, total: count.n } };
}

export async function get(db: Db, accountId: string, id: string) {
  const row = await db.selectFrom('outbox').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFound('Message not found');
  return row;
}
