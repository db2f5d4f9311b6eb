// Erases one address from the imports tables (forget_subscriber). Owned by the imports area.
// Staged rows of imports still running lose the address and become failed rows (the worker skips
// them, counts still add up); kept error lists of every import lose it too.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from '../eraser.ts';

export const FORGOTTEN = 'Address was forgotten (suppressed)';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  const lower = target.email.trim().toLowerCase();
  // a staged row is one element of its chunk's jsonb array: the element keeps only its row number and the reason
  await sql`update import_chunks c set rows = (
      select jsonb_agg(case when lower(e->>'email') = ${lower} then jsonb_build_object('row_no', e->'row_no', 'error', ${FORGOTTEN}::text) else e end order by n)
      from jsonb_array_elements(c.rows) with ordinality as x(e, n))
    where c.import_id in (select id from imports where account_id = ${accountId} and status in ('staging', 'processing'))
      and exists (select 1 from jsonb_array_elements(c.rows) e where lower(e->>'email') = ${lower})`.execute(trx);
  await sql`update imports set errors = (
      select coalesce(jsonb_agg(case when lower(e->>'email') = ${lower} then jsonb_set(e, '{email}', 'null'::jsonb) else e end order by n), '[]'::jsonb)
      from jsonb_array_elements(errors) with ordinality as x(e, n))
    where account_id = ${accountId}
      and exists (select 1 from jsonb_array_elements(errors) e where lower(e->>'email') = ${lower})`.execute(trx);
}
