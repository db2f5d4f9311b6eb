// What the person chose for one import, beside the file: a column mapping (any column to any subscriber
// field, a custom field or time_zone, or skipped), what happens to subscribers who exist already (updated
// or left alone), a consent or source note kept on each imported subscriber, and what a bad value does
// (refuses its row, or is dropped from it with a warning). One schema for the REST upload, the dashboard's
// upload and the job; the mapping is checked against the account's custom fields when the file is read.
import { z } from 'zod';
import type { ImportJobOptions } from '../../db/schema/imports.ts';
import { Validation } from '../errors.ts';
import { storableString } from '../storable.ts';
import { parseInput } from '../validation.ts';

export const SUBSCRIBER_COLUMNS = ['email', 'first_name', 'last_name', 'phone', 'time_zone'] as const;
export type SubscriberColumn = (typeof SUBSCRIBER_COLUMNS)[number];
export const SKIP = 'skip';

const TARGET_MESSAGE = `Map a column to one of: ${SUBSCRIBER_COLUMNS.join(', ')}, custom_fields.<key> or skip`;
const Target = z
  .string({ error: TARGET_MESSAGE })
  .trim()
  .refine(
    (t) =>
      t === SKIP ||
      (SUBSCRIBER_COLUMNS as readonly string[]).includes(t) ||
      /^custom_fields\.[a-z][a-z0-9_]{0,62}$/.test(t),
    TARGET_MESSAGE,
  );

export const ImportOptions = z
  .object({
    /** header text (as in the file, any case) → target */
    mapping: z
      .record(storableString().max(255, 'A mapped column name must be at most 255 characters'), Target, {
        error: 'mapping must be an object of column name → field',
      })
      .refine((m) => Object.keys(m).length <= 500, 'At most 500 mapped columns')
      .refine((m) => {
        const targets = Object.values(m).filter((t) => t !== SKIP);
        return new Set(targets).size === targets.length;
      }, 'Two columns are mapped to the same field; map one of them')
      .optional(),
    existing: z.enum(['update', 'skip'], { error: 'existing must be update or skip' }).default('update'),
    consent_note: storableString()
      .trim()
      .min(1, 'consent_note must not be empty')
      .max(1000, 'consent_note must be at most 1000 characters')
      .optional(),
    on_bad_value: z
      .enum(['refuse_row', 'drop_value'], { error: 'on_bad_value must be refuse_row or drop_value' })
      .default('refuse_row'),
  })
  .strict();
export type ImportOptions = z.output<typeof ImportOptions>;

/** The multipart fields besides file and group_ids; `mapping` is JSON text there. */
export const OPTION_FIELDS = ['mapping', 'existing', 'consent_note', 'on_bad_value'] as const;

/** Options from multipart text fields (mapping as JSON), or from a JSON object. */
export function parseOptions(input: Record<string, unknown>): ImportOptions {
  const raw: Record<string, unknown> = { ...input };
  if (typeof raw.mapping === 'string') {
    try {
      raw.mapping = raw.mapping.trim() === '' ? undefined : JSON.parse(raw.mapping);
    } catch {
      throw Validation.field('mapping', 'mapping must be a JSON object of column name → field');
    }
  }
  for (const k of Object.keys(raw)) if (raw[k] === '') delete raw[k];
  return parseInput(ImportOptions, raw);
}

/** What the job row keeps (defaults left out). */
export function stored(o: ImportOptions): ImportJobOptions {
  return {
    ...(o.existing !== 'update' && { existing: o.existing }),
    ...(o.consent_note && { consent_note: o.consent_note }),
    ...(o.on_bad_value !== 'refuse_row' && { on_bad_value: o.on_bad_value }),
    ...(o.mapping && { mapping: o.mapping }),
  };
}
