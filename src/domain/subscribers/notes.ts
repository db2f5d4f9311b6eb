// Notes on a subscriber.
// getFull in subscribers.ts reads them; this module writes them, always inside the subscriber's account.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';

export const NewNote = z.object({
  content: z.string({ error: 'Content is required' }).trim().min(1, 'Content is required').max(10_000, 'Content must be at most 10000 characters'),
});
export type NewNote = z.input<typeof NewNote>;

export interface Note {
  id: string;
  content: string;
  created_at: Date;
}

export async function addNote(db: Db, accountId: string, subscriberId: string, input: NewNote): Promise<Note> {
  const { content } = parseInput(NewNote, input);
  // insert … select: a subscriber of another account (or none) inserts nothing, with no read-then-write gap
  const row = await db
    .insertInto('subscriber_notes')
    .columns(['account_id', 'subscriber_id', 'content'])
    .expression((eb) =>
      eb
        .selectFrom('subscribers')
        .select([eb.val(accountId).as('account_id'), 'id', eb.val(content).as('content')])
        .where('account_id', '=', accountId)
        .where('id', '=', subscriberId),
    )
    .returning(['id', 'content', 'created_at'])
    .executeTakeFirst();
  if (!row) throw new NotFound('Subscriber not found');
  return row;
}
