// Erases one address from the imports tables (forget_subscriber). Owned by the imports area.
// Staged rows of imports still running lose the address and become failed rows (the worker skips
// them, counts still add up); kept error lists of every import lose it too.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from './index.ts';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  const lower = target.email.trim().toLowerCase();
  await trx
    .updateTable('import_rows')
    .set({ email: null, first_name: null, last_name: null, phone: null, custom_fields: null, error: 'Address was forgotten (suppressed)' })
    .where('import_id', 'in', (eb) => eb.selectFrom('imports').select('id').where('account_id', '=', accountId).where('status', 'in', ['staging', 'processing']))
    .where(sql<string>`lower(email)`, '=', lower)
    .execute();
  await sql`update imports set errors = (
      select coalesce(jsonb_agg(case when lower(e->>'email') = ${lower} then jsonb_set(e, '{email}', 'null'::jsonb) else e end order by n), '[]'::jsonb)
      from jsonb_array_elements(errors) with ordinality as x(e, n))
    where account_id = ${accountId}
      and exists (select 1 from jsonb_array_elements(errors) e where lower(e->>'email') = ${lower})`.execute(trx);
}
