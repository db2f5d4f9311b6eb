// Idempotency keys: a client that retries a POST with the same Idempotency-Key gets the first answer
// again instead of a second subscriber, campaign, import or webhook. Kept per account for 24 hours; a
// key whose first request never finished (the process died mid-request) is free again after 5 minutes.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import { Validation } from '../errors.ts';

export const KEEP_HOURS = 24;
const ABANDONED_AFTER = '5 minutes';

export type Claim =
  | { kind: 'first' }
  | { kind: 'replay'; status: number; response: string; contentType: string | null }
  | { kind: 'mismatch' }
  | { kind: 'in-progress' };

/** Printable ASCII, 1 to 255 characters (what clients put there: UUIDs, ULIDs, hashes). */
export function checkKey(raw: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(raw))
    throw Validation.field('Idempotency-Key', 'Idempotency-Key must be 1 to 255 printable ASCII characters');
  return raw;
}

/**
 * Takes the key for this request, or says what the key's first request left: its answer to replay, a
 * different request under the same key, or a first request still running.
 */
export async function claim(db: Db, accountId: string, key: string, fingerprint: string): Promise<Claim> {
  const taken = await sql<{ key: string }>`
    insert into idempotency_keys (account_id, key, fingerprint) values (${accountId}::uuid, ${key}, ${fingerprint})
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, status = null, response = null, content_type = null, created_at = now()
      where idempotency_keys.created_at < now() - ${KEEP_HOURS} * interval '1 hour'
         or (idempotency_keys.status is null and idempotency_keys.created_at < now() - interval '${sql.raw(ABANDONED_AFTER)}')
    returning key`.execute(db);
  if (taken.rows.length > 0) return { kind: 'first' };
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['fingerprint', 'status', 'response', 'content_type'])
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .executeTakeFirst();
  // gone between the two statements (its first request failed and let it go): take it now
  if (!row) return claim(db, accountId, key, fingerprint);
  if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (row.status === null) return { kind: 'in-progress' };
  return { kind: 'replay', status: row.status, response: row.response ?? '', contentType: row.content_type };
}

/** The first request's answer, kept for its retries. */
export async function remember(
  db: Db,
  accountId: string,
  key: string,
  answer: { status: number; response: string; contentType: string | null },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: answer.status, response: answer.response, content_type: answer.contentType })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .execute();
}

/** The first request failed on our side (5xx): its retry should run again, not replay the failure. */
export async function release(db: Db, accountId: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('status', 'is', null)
    .execute();
}

/** Drops keys older than KEEP_HOURS (the scheduler's housekeeping). */
export async function expire(db: Db): Promise<number> {
  const r = await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - ${KEEP_HOURS} * interval '1 hour'`)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
