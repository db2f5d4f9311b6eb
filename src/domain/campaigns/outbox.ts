// The captured mail of an account: without SMTP_URL the transport writes every message to the
// outbox table; the dashboard reads it here, newest first, always scoped by account.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { offsetOf, pageOf, PageQuery, type Page } from '../paging.ts';
import { parseInput } from '../validation.ts';
import * as queries from './queries.ts';

export type OutboxSummary = Awaited<ReturnType<typeof queries.outboxPage>>['rows'][number];

// words matched anywhere in the recipient, the sender or the subject (test sends pile up page after page)
const OutboxQuery = PageQuery.extend({ search: z.string().trim().max(255).optional() });

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<OutboxSummary>> {
  const q = parseInput(OutboxQuery, query);
  const { rows, total } = await queries.outboxPage(db, accountId, q.per_page, offsetOf(q), q.search || undefined);
  return pageOf(rows, q, total);
}

export async function get(db: Db, accountId: string, id: string) {
  const row = await queries.outboxMessage(db, accountId, id);
  if (!row) throw new NotFound('Message not found');
  return row;
}
