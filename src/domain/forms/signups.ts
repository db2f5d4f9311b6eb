// Public signups through a form: the honeypot, field validation, and either a direct
// subscribe (source 'form') or a double opt-in signup kept in pending_signups until its signed link
// /f/confirm/{token} (7 days) is opened. Mail goes out after the transaction commits, never inside it.
// Without double opt-in an existing subscriber's status is left alone (anyone can type an address);
// a confirmed double opt-in is the owner's own consent, so it reactivates an unsubscribed subscriber.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import * as pendingRepo from './pendingQueries.ts';
import * as repo from './queries.ts';
import type { PendingSignupData } from '../../db/schema/forms.ts';
import { feedbackId, listId, mailFromAddress } from '../../mail/headers.ts';
import { formatAddress, type MailTransport } from '../../mail/transport.ts';
import { verpAddress } from '../../mail/verp.ts';
import { senderIdentity } from '../sending/identity.ts';
import { NotFound, Validation, type FieldErrors } from '../errors.ts';
import { recordEvent } from '../events/log.ts';
import { returnPathDomainFor } from '../feedback/returnPath.ts';
import * as fields from '../subscribers/fields.ts';
import * as subscriberGroups from '../subscribers/groups.ts';
import { formConfirmationMail } from './confirmationMail.ts';
import { resolved } from './design.ts';
import { CONSENT, HONEYPOT, RENDERED, TIME_ZONE } from './markup.ts';
import * as notes from '../subscribers/notes.ts';
import { BUILT_IN_FIELDS, type FormRow } from './forms.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { isTimeZone, toFieldErrors } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

/** How long a confirmation link stays good: SIGNUP_CONFIRM_DAYS (7 days unless set). */
export function confirmTtlMs(config: Partial<Pick<Config, 'SIGNUP_CONFIRM_DAYS'>>): number {
  return (config.SIGNUP_CONFIRM_DAYS ?? 7) * 86_400_000;
}
/** a second submission of the same address within this time does not mail it again (mail-bombing guard) */
export const RESEND_AFTER_MS = 10 * 60_000;

export type MailConfig = Pick<Config, 'secret' | 'publicUrl' | 'MAIL_FROM'> &
  Partial<Pick<Config, 'SIGNUP_CONFIRM_DAYS' | 'BOUNCE_DOMAIN' | 'FORM_MIN_FILL_SECONDS'>>;

export type SubmitResult =
  | { status: 'subscribed'; form: FormRow; subscriberId: string }
  | { status: 'pending'; form: FormRow; mailed: boolean }
  /** the confirmation mail could not be sent; the signup is kept and a retry resends it */
  | { status: 'mail_failed'; form: FormRow; error: string }
  /** the honeypot was filled: answer like a success, store nothing */
  | { status: 'ignored'; form: FormRow };

/** An active form for its public page (by id or slug), counting one view. */
export async function view(db: Db, ref: repo.PublicRef) {
  const form = await repo.viewActive(db, ref);
  if (!form) throw new NotFound('Form not found');
  return withLiveFields(db, form);
}

/** An active form for its public page, without counting a view (re-rendering after a failed submission). */
export async function find(db: Db, ref: repo.PublicRef) {
  const form = await repo.findActive(db, ref);
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
  ref: repo.PublicRef,
  body: unknown,
  now = Date.now(),
): Promise<SubmitResult> {
  const form = await repo.findActive(db, ref);
  if (!form) throw new NotFound('Form not found');
  const values = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (scalar(values[HONEYPOT]) !== undefined) return { status: 'ignored', form };
  const minFillMs = (mail.config.FORM_MIN_FILL_SECONDS ?? 0) * 1000;
  if (tooFast(mail.config.secret, scalar(values[RENDERED]), now, minFillMs)) return { status: 'ignored', form };
  const { types } = await withLiveFields(db, form);
  const input = collect(form, types, values);
  const groups = [...(await subscriberGroups.existingIds(db, form.account_id, form.group_ids))];
  if (!form.double_opt_in) {
    // one transaction: a sign-up whose form.submitted is lost would never start the form_submitted automations
    const subscriberId = await inTransaction(db, async (trx) => {
      const { consent, ...fieldsOf } = input;
      const { subscriber } = await subscribers.upsertByEmail(trx, form.account_id, { ...fieldsOf, groups }, 'form');
      if (consent) await notes.addNote(trx, form.account_id, subscriber.id, { content: consent });
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
  const started = await startSignup(db, mail, { accountId: form.account_id, form, email, data });
  if ('error' in started) return { status: 'mail_failed', form, error: started.error };
  return { status: 'pending', form, mailed: started.mailed };
}

/**
 * A double opt-in sign-up started, or refreshed with new data: one unconfirmed sign-up per form and
 * address (per account and address without a form), and its confirmation mailed unless one went to the
 * address within RESEND_AFTER_MS. The hosted form and POST /subscribers with double_opt_in both come here.
 */
export async function startSignup(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  p: { accountId: string; form: FormRow | null; email: string; data: PendingSignupData },
): Promise<{ id: string; mailed: boolean } | { id: string; error: string }> {
  const formId = p.form?.id ?? null;
  const pending = await inTransaction(db, async (trx) => {
    await repo.purgeExpired(trx, p.accountId, formId);
    if (formId) await repo.countSubmission(trx, p.accountId, formId);
    return repo.upsertPending(trx, {
      accountId: p.accountId,
      formId,
      email: p.email,
      data: p.data,
      expiresAt: new Date(Date.now() + confirmTtlMs(mail.config)),
    });
  });
  if (pending.last_sent_at && Date.now() - new Date(pending.last_sent_at).getTime() < RESEND_AFTER_MS)
    return { id: pending.id, mailed: false };
  const sent = await sendConfirmation(db, mail, p.accountId, p.form, {
    id: pending.id,
    expiresAt: new Date(pending.expires_at),
    email: p.email,
    firstName: p.data.first_name,
  });
  if (!sent.ok) return { id: pending.id, error: sent.error };
  await repo.markSent(db, pending.id);
  return { id: pending.id, mailed: true };
}

/** form null: a sign-up through the API without a form */
export type ConfirmResult =
  { status: 'confirmed' | 'already_confirmed'; form: FormRow | null } | { status: 'invalid' | 'expired' };

/** Opens a confirmation link: creates or reactivates the subscriber, joins the form's groups, counts it once. */
export async function confirm(db: Db, config: Pick<Config, 'secret'>, token: string): Promise<ConfirmResult> {
  const claim = verifyToken(config.secret, token);
  if (!claim) return { status: 'invalid' };
  if (claim.expiresAt.getTime() <= Date.now()) return { status: 'expired' };
  const signup = await repo.findPending(db, claim.id);
  if (!signup) return { status: 'invalid' }; // the address forgotten since
  const form = signup.form_id ? ((await repo.findById(db, signup.account_id, signup.form_id)) ?? null) : null;
  if (signup.form_id && !form) return { status: 'invalid' }; // form deleted
  if (signup.confirmed_at) return { status: 'already_confirmed', form };
  await completeSignup(db, signup, form);
  return { status: 'confirmed', form };
}

type PendingRow = NonNullable<Awaited<ReturnType<typeof repo.findPending>>>;

/**
 * A sign-up's consent is given: the subscriber is created or reactivated in the form's groups (an API
 * sign-up's: the groups it asked for), with its consent text as a note, and the confirmation and
 * form.submitted commit together. `byHand` records who confirmed it without the link and why. False when
 * another request confirmed it first.
 */
export async function completeSignup(
  db: Db,
  signup: PendingRow,
  form: FormRow | null,
  byHand?: { by: string; reason: string },
): Promise<boolean> {
  const accountId = signup.account_id;
  const types = await fields.definitions(db, accountId);
  const { group_ids: asked = [], consent, ...data } = signup.data;
  const groups = [...(await subscriberGroups.existingIds(db, accountId, [...(form?.group_ids ?? []), ...asked]))];
  return inTransaction(db, async (trx) => {
    const { subscriber } = await subscribers.upsertByEmail(
      trx,
      accountId,
      {
        email: signup.email,
        ...data,
        custom_fields: stillDefined(types, data.custom_fields),
        status: 'active',
        groups,
      },
      form ? 'form' : 'api',
    );
    if (!(await repo.markConfirmed(trx, signup.id, subscriber.id))) return false; // a concurrent click counted it
    if (byHand) await pendingRepo.recordManualConfirmation(trx, signup.id, byHand.by, byHand.reason);
    if (consent) await notes.addNote(trx, accountId, subscriber.id, { content: consent });
    if (!form) return true;
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
    return true;
  });
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
  const design = resolved(form.design, form.name);
  if (design.consent?.required && scalar(body[CONSENT]) === undefined)
    errors[CONSENT] = ['Please tick this box to subscribe'];
  if (Object.keys(errors).length > 0 || !parsed.success) throw Validation.of(errors);
  const out: Omit<PendingSignupData, 'group_ids'> & { email: string } = { email: parsed.data.email };
  for (const k of ['first_name', 'last_name', 'phone'] as const) if (parsed.data[k]) out[k] = parsed.data[k]!;
  if (Object.keys(coerced).length > 0) out.custom_fields = coerced;
  const zone = scalar(body[TIME_ZONE]);
  if (typeof zone === 'string' && isTimeZone(zone)) out.time_zone = zone; // a zone this runtime does not know is left out
  if (design.consent && scalar(body[CONSENT]) !== undefined)
    out.consent = `Consent given on the form “${form.name}” on ${new Date().toISOString().slice(0, 10)}: ${design.consent.text}`;
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

// ---- bot protection: the signed render time ----

/** The hidden _ts value of a rendered form: when, signed, so a bot cannot simply send an old time. */
export function renderedAt(secret: string, now = Date.now()): string {
  const t = String(Math.floor(now));
  return `${t}.${createHmac('sha256', secret).update('form-rendered:').update(t).digest('base64url').slice(0, 22)}`;
}

/**
 * True when a signed render time says the form was sent back faster than a person fills one in
 * (FORM_MIN_FILL_SECONDS), or the time was forged: a bot's submission, answered but not kept.
 */
function tooFast(secret: string, value: unknown, now: number, minFillMs: number): boolean {
  if (minFillMs <= 0) return false; // the check is off (FORM_MIN_FILL_SECONDS unset)
  if (typeof value !== 'string') return false; // a static embed has none: the honeypot and rate limit remain
  const [t, sig] = value.split('.');
  if (!t || !sig || !/^\d{1,15}$/.test(t)) return true; // forged or mangled
  const expected = renderedAt(secret, Number(t)).split('.')[1]!;
  if (sig.length !== expected.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(expected))) return true;
  return now - Number(t) < minFillMs;
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

/** The confirmation mail of a sign-up: the form's own when it has one, else the built-in one; form null: an API sign-up. */
export async function sendConfirmation(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  accountId: string,
  form: FormRow | null,
  s: { id: string; expiresAt: Date; email: string; firstName?: string },
) {
  const account = await repo.sender(db, accountId);
  const link = `${mail.config.publicUrl}/f/confirm/${signToken(mail.config.secret, s.id, s.expiresAt)}`;
  const sender = account.default_from_name ?? account.name;
  const message = formConfirmationMail(form, {
    email: s.email,
    firstName: s.firstName,
    sender,
    link,
  });
  const from = account.default_from_email
    ? formatAddress(account.default_from_name, account.default_from_email)
    : mail.config.MAIL_FROM;
  // signed with the account's verified sending domain's key, like its campaigns
  const identity = await senderIdentity(db, mail.config, accountId, from);
  const { dkim, relayId } = identity;
  // a confirmation that bounces names its signup, so the bounce is told apart from a subscriber's
  const returnPath = await returnPathDomainFor(db, mail.config, accountId, mailFromAddress(from), identity);
  return mail.transport.send({
    accountId,
    from,
    ...(returnPath && {
      envelopeFrom: verpAddress(mail.config.secret, 'bounce', { kind: 'confirmation', signupId: s.id }, returnPath),
    }),
    replyTo: account.default_reply_to ?? undefined,
    to: s.email,
    ...message,
    headers: {
      'List-Id': listId(mail.config, accountId, dkim?.domainName),
      'Feedback-ID': feedbackId(mail.config, form?.id ?? 'api', accountId, 'confirmation'),
    },
    ...(dkim && { dkim }),
    ...(relayId && { relayId }),
  });
}
