// The captured mail of an account: without SMTP_URL the transport writes every message to the
// outbox table; the dashboard reads it here, newest first, always scoped by account.
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { offsetOf, pageOf, type Page, type Paging } from '../paging.ts';
import * as queries from './queries.ts';

export type OutboxSummary = Awaited<ReturnType<typeof queries.outboxPage>>['rows'][number];

export async function list(db: Db, accountId: string, paging: Paging): Promise<Page<OutboxSummary>> {
  const { rows, total } = await queries.outboxPage(db, accountId, paging.per_page, offsetOf(paging));
  return pageOf(rows, paging, total);
}

export async function get(db: Db, accountId: string, id: string) {
  const row = await queries.outboxMessage(db, accountId, id);
  if (!row) throw new NotFound('Message not found');
  return row;
}
