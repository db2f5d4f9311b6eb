// Notes on a subscriber.
// getFull in subscribers.ts reads them; this module writes them, always inside the subscriber's account.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import { NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';

export const NewNote = z.object({
  content: z
    .string({ error: 'Content is required' })
    .trim()
    .min(1, 'Content is required')
    .max(10_000, 'Content must be at most 10000 characters'),
});
export type NewNote = z.input<typeof NewNote>;

export interface Note {
  id: string;
  content: string;
  created_at: Date;
}

export async function addNote(db: Db, accountId: string, subscriberId: string, input: unknown): Promise<Note> {
  const { content } = parseInput(NewNote, input);
  const row = await repo.insertNote(db, accountId, subscriberId, content);
  if (!row) throw new NotFound('Subscriber not found');
  return row;
}
