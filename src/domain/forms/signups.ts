// Public signups through a form: the honeypot, field validation, and either a direct
// subscribe (source 'form') or a double opt-in signup kept in pending_signups until its signed link
// /f/confirm/{token} (7 days) is opened. Mail goes out after the transaction commits, never inside it.
// Without double opt-in an existing subscriber's status is left alone (anyone can type an address);
// a confirmed double opt-in is the owner's own consent, so it reactivates an unsubscribed subscriber.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import * as repo from './queries.ts';
import type { PendingSignupData } from '../../db/schema/forms.ts';
import { formatAddress, type MailTransport } from '../../mail/transport.ts';
import { NotFound, Validation, type FieldErrors } from '../errors.ts';
import { recordEvent } from '../events/log.ts';
import * as fields from '../subscribers/fields.ts';
import * as subscriberGroups from '../subscribers/groups.ts';
import { confirmationMail } from './confirmationMail.ts';
import { HONEYPOT } from './markup.ts';
import { BUILT_IN_FIELDS, type FormRow } from './forms.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { toFieldErrors } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const CONFIRM_TTL_MS = 7 * 86_400_000;
/** a second submission of the same address within this time does not mail it again (mail-bombing guard) */
export const RESEND_AFTER_MS = 10 * 60_000;

export type MailConfig = Pick<Config, 'secret' | 'publicUrl' | 'MAIL_FROM'>;

export type SubmitResult =
  | { status: 'subscribed'; form: FormRow; subscriberId: string }
  | { status: 'pending'; form: FormRow; mailed: boolean }
  /** the confirmation mail could not be sent; the signup is kept and a retry resends it */
  | { status: 'mail_failed'; form: FormRow; error: string }
  /** the honeypot was filled: answer like a success, store nothing */
  | { status: 'ignored'; form: FormRow };

/** An active form for its public page, counting one view. */
export async function view(db: Db, formId: string) {
  const form = await repo.viewActive(db, formId);
  if (!form) throw new NotFound('Form not found');
  return withLiveFields(db, form);
}

/** An active form for its public page, without counting a view (re-rendering after a failed submission). */
export async function find(db: Db, formId: string) {
  const form = await repo.findActive(db, formId);
  if (!form) throw new NotFound('Form not found');
  return withLiveFields(db, form);
}

/** A custom field deleted since the form was saved drops out of the form instead of breaking every signup. */
async function withLiveFields(db: Db, form: FormRow) {
  const types = await fields.definitions(db, form.account_id);
  return { form: { ...form, fields: form.fields.filter((f) => f.key in BUILT_IN_FIELDS || types.has(f.key)) }, types };
}

export async function submit(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  formId: string,
  body: unknown,
): Promise<SubmitResult> {
  const form = await repo.findActive(db, formId);
  if (!form) throw new NotFound('Form not found');
  const values = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (scalar(values[HONEYPOT]) !== undefined) return { status: 'ignored', form };
  const { types } = await withLiveFields(db, form);
  const input = collect(form, types, values);
  const groups = [...(await subscriberGroups.existingIds(db, form.account_id, form.group_ids))];
  if (!form.double_opt_in) {
    // one transaction: a sign-up whose form.submitted is lost would never start the form_submitted automations
    const subscriberId = await inTransaction(db, async (trx) => {
      const { subscriber } = await subscribers.upsertByEmail(trx, form.account_id, { ...input, groups }, 'form');
      await repo.recordSignup(trx, form.account_id, form.id, subscriber.id);
      await repo.countSubmission(trx, form.account_id, form.id);
      await recordEvent(
        trx,
        form.account_id,
        'form.submitted',
        { form: { id: form.id, name: form.name }, subscriber: { id: subscriber.id, email: subscriber.email } },
        subscriber.id,
      );
      return subscriber.id;
    });
    return { status: 'subscribed', form, subscriberId };
  }
  const { email, ...data } = input;
  const pending = await inTransaction(db, async (trx) => {
    await repo.purgeExpired(trx, form.id);
    await repo.countSubmission(trx, form.account_id, form.id);
    return repo.upsertPending(trx, {
      accountId: form.account_id,
      formId: form.id,
      email,
      data,
      expiresAt: new Date(Date.now() + CONFIRM_TTL_MS),
    });
  });
  if (pending.last_sent_at && Date.now() - new Date(pending.last_sent_at).getTime() < RESEND_AFTER_MS)
    return { status: 'pending', form, mailed: false };
  const sent = await sendConfirmation(db, mail, form, {
    id: pending.id,
    expiresAt: new Date(pending.expires_at),
    email,
    firstName: data.first_name,
  });
  if (!sent.ok) return { status: 'mail_failed', form, error: sent.error };
  await repo.markSent(db, pending.id);
  return { status: 'pending', form, mailed: true };
}

export type ConfirmResult =
  { status: 'confirmed' | 'already_confirmed'; form: FormRow } | { status: 'invalid' | 'expired' };

/** Opens a confirmation link: creates or reactivates the subscriber, joins the form's groups, counts it once. */
export async function confirm(db: Db, config: Pick<Config, 'secret'>, token: string): Promise<ConfirmResult> {
  const claim = verifyToken(config.secret, token);
  if (!claim) return { status: 'invalid' };
  if (claim.expiresAt.getTime() <= Date.now()) return { status: 'expired' };
  const signup = await repo.findPending(db, claim.id);
  const form = signup && (await repo.findById(db, signup.account_id, signup.form_id));
  if (!signup || !form) return { status: 'invalid' }; // form deleted, or the address forgotten since
  if (signup.confirmed_at) return { status: 'already_confirmed', form };
  const types = await fields.definitions(db, form.account_id);
  const groups = [...(await subscriberGroups.existingIds(db, form.account_id, form.group_ids))];
  // one transaction, as for a direct sign-up: the subscriber, the confirmation and form.submitted commit together
  await inTransaction(db, async (trx) => {
    const { subscriber } = await subscribers.upsertByEmail(
      trx,
      form.account_id,
      {
        email: signup.email,
        ...signup.data,
        custom_fields: stillDefined(types, signup.data.custom_fields),
        status: 'active',
        groups,
      },
      'form',
    );
    if (!(await repo.markConfirmed(trx, signup.id, subscriber.id))) return; // a concurrent click counted it
    await repo.recordSignup(trx, form.account_id, form.id, subscriber.id);
    await repo.countConfirmation(trx, form.account_id, form.id);
    await recordEvent(
      trx,
      form.account_id,
      'form.submitted',
      {
        form: { id: form.id, name: form.name },
        subscriber: { id: subscriber.id, email: subscriber.email },
        confirmed: true,
      },
      subscriber.id,
    );
  });
  return { status: 'confirmed', form };
}

// ---- submitted values ----

function scalar(v: unknown): unknown {
  const one = Array.isArray(v) ? v[0] : v;
  if (one === undefined || one === null || (typeof one === 'string' && one.trim() === '')) return undefined;
  return one;
}

/** The form's own fields from a submission (anything else is ignored), validated like add_subscriber. */
function collect(form: FormRow, types: Map<string, fields.FieldType>, body: Record<string, unknown>) {
  const errors: FieldErrors = {};
  const base: Record<string, string> = {};
  const custom: Record<string, unknown> = {};
  for (const f of form.fields) {
    if (!(f.key in BUILT_IN_FIELDS) && !types.has(f.key)) continue; // deleted since the form was saved
    let v = scalar(body[f.key]);
    if (types.get(f.key) === 'boolean' && v === 'on') v = true; // a checkbox without a value attribute
    if (
      v === undefined ||
      (f.required && types.get(f.key) === 'boolean' && fields.coerceValue('boolean', v) !== true)
    ) {
      if (f.required) errors[f.key] = ['This field is required'];
      continue;
    }
    if (f.key in BUILT_IN_FIELDS) base[f.key] = String(v);
    else custom[f.key] = v;
  }
  const parsed = subscribers.UpsertSubscriber.pick({
    email: true,
    first_name: true,
    last_name: true,
    phone: true,
  }).safeParse(base);
  if (!parsed.success) for (const [k, m] of Object.entries(toFieldErrors(parsed.error))) errors[k] ??= m;
  let coerced: Record<string, unknown> = {};
  try {
    coerced = fields.coerceWith(types, custom);
  } catch (err) {
    if (!(err instanceof Validation)) throw err;
    for (const [k, m] of Object.entries(err.fields)) errors[k.replace(/^custom_fields\./, '')] ??= m;
  }
  if (Object.keys(errors).length > 0 || !parsed.success) throw Validation.of(errors);
  const out: PendingSignupData & { email: string } = { email: parsed.data.email };
  for (const k of ['first_name', 'last_name', 'phone'] as const) if (parsed.data[k]) out[k] = parsed.data[k]!;
  if (Object.keys(coerced).length > 0) out.custom_fields = coerced;
  return out;
}

/** Custom values whose field still exists with a type they fit (definitions may change in 7 days). */
function stillDefined(
  types: ReadonlyMap<string, fields.FieldType>,
  values: Record<string, unknown> = {},
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([k, v]) => types.has(k) && fields.coerceValue(types.get(k)!, v) !== undefined),
  );
}

// ---- the confirmation link and mail ----

function mac(secret: string, payload: Buffer): string {
  // a purpose prefix: the same secret signs tracking and unsubscribe tokens, which must not pass as these
  return createHmac('sha256', secret).update('form-confirm:').update(payload).digest('base64url');
}

/**
 * token = base64url(16-byte signup id + 4-byte expiry in unix seconds) + "." + base64url(HMAC-SHA256):
 * 71 characters, under Fastify's 100-character path parameter limit (the text form of the id is not).
 */
export function signToken(secret: string, signupId: string, expiresAt: Date): string {
  const payload = Buffer.alloc(20);
  Buffer.from(signupId.replace(/-/g, ''), 'hex').copy(payload, 0);
  payload.writeUInt32BE(Math.max(0, Math.floor(expiresAt.getTime() / 1000)), 16);
  return `${payload.toString('base64url')}.${mac(secret, payload)}`;
}

export function verifyToken(secret: string, token: string): { id: string; expiresAt: Date } | undefined {
  const [encoded, signature, ...rest] = token.split('.');
  if (!encoded || !signature || rest.length > 0) return undefined;
  const payload = Buffer.from(encoded, 'base64url');
  if (payload.length !== 20) return undefined;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const hex = payload.subarray(0, 16).toString('hex');
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { id, expiresAt: new Date(payload.readUInt32BE(16) * 1000) };
}

async function sendConfirmation(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  form: FormRow,
  s: { id: string; expiresAt: Date; email: string; firstName?: string },
) {
  const account = await repo.sender(db, form.account_id);
  const link = `${mail.config.publicUrl}/f/confirm/${signToken(mail.config.secret, s.id, s.expiresAt)}`;
  const sender = account.default_from_name ?? account.name;
  const message = confirmationMail({ firstName: s.firstName, sender, link });
  return mail.transport.send({
    accountId: form.account_id,
    from: account.default_from_email
      ? formatAddress(account.default_from_name, account.default_from_email)
      : mail.config.MAIL_FROM,
    replyTo: account.default_reply_to ?? undefined,
    to: s.email,
    ...message,
  });
}
