// The account's double opt-in sign-ups as a list: pending (link not yet opened), confirmed, or expired.
import type { Db } from '../../db/client.ts';

export type SignupState = 'pending' | 'confirmed' | 'expired';

function ofState(db: Db, accountId: string, state: SignupState, formId: string | undefined, now: Date) {
  return db
    .selectFrom('pending_signups as p')
    .leftJoin('forms as f', 'f.id', 'p.form_id')
    .where('p.account_id', '=', accountId)
    .$if(formId !== undefined, (qb) => qb.where('p.form_id', '=', formId!))
    .$if(state === 'confirmed', (qb) => qb.where('p.confirmed_at', 'is not', null))
    .$if(state === 'pending', (qb) => qb.where('p.confirmed_at', 'is', null).where('p.expires_at', '>', now))
    .$if(state === 'expired', (qb) => qb.where('p.confirmed_at', 'is', null).where('p.expires_at', '<=', now));
}

export async function signupPage(
  db: Db,
  accountId: string,
  q: { state: SignupState; formId?: string; limit: number; offset: number; now: Date },
) {
  const base = ofState(db, accountId, q.state, q.formId, q.now);
  const [rows, count] = await Promise.all([
    base
      .select([
        'p.id',
        'p.form_id',
        'f.name as form_name',
        'p.email',
        'p.data',
        'p.created_at',
        'p.expires_at',
        'p.last_sent_at',
        'p.confirmed_at',
        'p.subscriber_id',
        'p.confirmed_by',
        'p.confirm_reason',
      ])
      .orderBy('p.created_at', 'desc')
      .orderBy('p.id', 'desc')
      .limit(q.limit)
      .offset(q.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function countPending(db: Db, accountId: string, now: Date): Promise<number> {
  const row = await ofState(db, accountId, 'pending', undefined, now)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findOne(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('pending_signups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A new confirmation window for a resent link. */
export async function renew(db: Db, id: string, expiresAt: Date): Promise<void> {
  await db.updateTable('pending_signups').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

export async function recordManualConfirmation(db: Db, id: string, by: string, reason: string): Promise<void> {
  await db
    .updateTable('pending_signups')
    .set({ confirmed_by: by, confirm_reason: reason })
    .where('id', '=', id)
    .execute();
}
