// The double opt-in sign-ups an account is waiting on: listed (pending, confirmed, expired), their
// confirmation mail sent again with a fresh link, or confirmed by hand with a recorded reason when the
// marketer holds the consent some other way (a paper form, a phone call).
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { MailTransport } from '../../mail/transport.ts';
import { NotFound, StateConflict } from '../errors.ts';
import { offsetOf, pageOf, PageQuery, type Page } from '../paging.ts';
import { storableString } from '../storable.ts';
import { parseInput } from '../validation.ts';
import * as repo from './pendingQueries.ts';
import * as forms from './queries.ts';
import { completeSignup, confirmTtlMs, sendConfirmation, type MailConfig } from './signups.ts';

const NOT_FOUND = 'Sign-up not found';
/** the owner may resend, but not faster than this: each resend is a mail to someone who has not said yes */
export const MANUAL_RESEND_AFTER_MS = 60_000;

export const SignupQuery = PageQuery.extend({
  status: z
    .enum(['pending', 'confirmed', 'expired'], { error: 'status must be one of: pending, confirmed, expired' })
    .default('pending'),
  form_id: z.uuid({ error: 'form_id must be a form id' }).optional(),
});

export const ManualConfirmation = z
  .object({
    reason: storableString()
      .trim()
      .min(1, 'Say why this sign-up is confirmed without its link (e.g. "signed the paper form at the fair")')
      .max(500),
  })
  .strict();

export interface Signup {
  id: string;
  /** null: a sign-up through the API without a form */
  form_id: string | null;
  form_name: string | null;
  email: string;
  first_name: string | null;
  last_name: string | null;
  status: 'pending' | 'confirmed' | 'expired';
  created_at: Date;
  expires_at: Date;
  last_sent_at: Date | null;
  confirmed_at: Date | null;
  subscriber_id: string | null;
  confirmed_by: string | null;
  confirm_reason: string | null;
}

type Row = Awaited<ReturnType<typeof repo.signupPage>>['rows'][number];

function view(r: Row, now: Date): Signup {
  const expiresAt = new Date(r.expires_at);
  return {
    id: r.id,
    form_id: r.form_id,
    form_name: r.form_name,
    email: r.email,
    first_name: r.data.first_name ?? null,
    last_name: r.data.last_name ?? null,
    status: r.confirmed_at ? 'confirmed' : expiresAt <= now ? 'expired' : 'pending',
    created_at: new Date(r.created_at),
    expires_at: expiresAt,
    last_sent_at: r.last_sent_at ? new Date(r.last_sent_at) : null,
    confirmed_at: r.confirmed_at ? new Date(r.confirmed_at) : null,
    subscriber_id: r.subscriber_id,
    confirmed_by: r.confirmed_by,
    confirm_reason: r.confirm_reason,
  };
}

export async function list(db: Db, accountId: string, query: unknown, now = new Date()): Promise<Page<Signup>> {
  const q = parseInput(SignupQuery, query);
  const { rows, total } = await repo.signupPage(db, accountId, {
    state: q.status,
    formId: q.form_id,
    limit: q.per_page,
    offset: offsetOf(q),
    now,
  });
  return pageOf(
    rows.map((r) => view(r, now)),
    q,
    total,
  );
}

export function countPending(db: Db, accountId: string, now = new Date()): Promise<number> {
  return repo.countPending(db, accountId, now);
}

export async function get(db: Db, accountId: string, id: string, now = new Date()): Promise<Signup> {
  const row = await repo.findOne(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  const form = await formOf(db, accountId, row.form_id);
  return view({ ...row, form_name: form?.name ?? null }, now);
}

/** The sign-up's form; null for an API sign-up without one. A form deleted since takes its sign-ups with it. */
async function formOf(db: Db, accountId: string, formId: string | null) {
  if (formId === null) return null;
  const form = await forms.findById(db, accountId, formId);
  if (!form) throw new NotFound(NOT_FOUND);
  return form;
}

/**
 * Mails the confirmation again with a link good for another SIGNUP_CONFIRM_DAYS (an expired sign-up
 * becomes pending again). A confirmed one is a 409; twice within a minute, a 409 too.
 */
export async function resend(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  accountId: string,
  id: string,
  now = new Date(),
): Promise<Signup> {
  const row = await repo.findOne(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  if (row.confirmed_at) throw new StateConflict('This sign-up is confirmed already');
  if (row.last_sent_at && now.getTime() - new Date(row.last_sent_at).getTime() < MANUAL_RESEND_AFTER_MS)
    throw new StateConflict('A confirmation was sent less than a minute ago');
  const form = await formOf(db, accountId, row.form_id);
  const expiresAt = new Date(now.getTime() + confirmTtlMs(mail.config));
  await repo.renew(db, row.id, expiresAt);
  const sent = await sendConfirmation(db, mail, accountId, form, {
    id: row.id,
    expiresAt,
    email: row.email,
    firstName: row.data.first_name,
  });
  if (!sent.ok) throw new StateConflict(`The confirmation could not be sent: ${sent.error}`);
  await forms.markSent(db, row.id);
  return get(db, accountId, id, now);
}

/** Confirms without the link; `by` names who did it (a user's email, an API key's name). */
export async function confirmByHand(
  db: Db,
  accountId: string,
  id: string,
  by: string,
  input: unknown,
  now = new Date(),
): Promise<Signup> {
  const { reason } = parseInput(ManualConfirmation, input);
  const row = await repo.findOne(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  if (row.confirmed_at) throw new StateConflict('This sign-up is confirmed already');
  const form = await formOf(db, accountId, row.form_id);
  if (!(await completeSignup(db, row, form, { by, reason })))
    throw new StateConflict('This sign-up is confirmed already');
  return get(db, accountId, id, now);
}
