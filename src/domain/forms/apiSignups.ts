// POST /subscribers with double_opt_in: true. Instead of creating the subscriber, it starts a pending
// sign-up and mails the confirmation, the same sign-up and mail as a hosted form's; opening the link
// creates or updates the subscriber. With `form_id` the sign-up belongs to that form (its confirmation
// mail, its groups and counts, its "confirmed" message); without it the account's defaults are used (its
// sender, the built-in confirmation mail, the groups in group_ids). Without the flag the request is the
// spec's create, untouched.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { PendingSignupData } from '../../db/schema/forms.ts';
import type { MailTransport } from '../../mail/transport.ts';
import { Validation } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { parseInput } from '../validation.ts';
import * as repo from './queries.ts';
import { startSignup, type MailConfig } from './signups.ts';

const Flag = z.object({
  double_opt_in: z.boolean({ error: 'double_opt_in must be true or false' }).optional(),
});

export const ApiSignup = subscribers.NewSubscriber.extend({
  double_opt_in: z.literal(true),
  form_id: z.guid('form_id must be a form id').optional(),
});

/** The request body of POST /subscribers as documented: the spec's fields plus the double opt-in ones. */
export const CreateOrSignup = subscribers.NewSubscriber.extend({
  double_opt_in: Flag.shape.double_opt_in.describe(
    'true: start a double opt-in sign-up (202) instead of creating the subscriber (201)',
  ),
  form_id: ApiSignup.shape.form_id.describe('with double_opt_in: the form whose confirmation mail and groups apply'),
});

export type CreateOrSignupResult =
  { created: subscribers.Subscriber } | { signup_id: string; status: 'pending'; confirmation_sent: boolean };

export async function createOrSignup(
  db: Db,
  mail: { transport: MailTransport; config: MailConfig },
  accountId: string,
  input: unknown,
  source: subscribers.Source,
): Promise<CreateOrSignupResult> {
  const { double_opt_in } = parseInput(Flag, input);
  if (double_opt_in !== true) return { created: await subscribers.create(db, accountId, input, source) };
  const a = parseInput(ApiSignup, input);
  const form = a.form_id ? await repo.findById(db, accountId, a.form_id) : null;
  if (a.form_id && !form) throw Validation.field('form_id', 'Form not found');
  const data: PendingSignupData = {};
  for (const k of ['first_name', 'last_name', 'phone', 'time_zone'] as const) if (a[k]) data[k] = a[k];
  if (a.group_ids?.length) data.group_ids = await subscribers.checkGroups(db, accountId, a.group_ids);
  if (a.custom_fields && Object.keys(a.custom_fields).length > 0)
    data.custom_fields = fields.coerceWith(await fields.definitions(db, accountId), a.custom_fields);
  const started = await startSignup(db, mail, { accountId, form: form ?? null, email: a.email, data });
  return { signup_id: started.id, status: 'pending', confirmation_sent: 'mailed' in started && started.mailed };
}
