// Custom-field definitions of an account (key, name, type) and the coercion of values to those types.
// A subscriber's custom_fields may only use defined keys; each value is coerced or rejected per field.
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import * as repo from './fieldQueries.ts';
import type { FieldRow } from '../../db/schema.ts';
import { Conflict, NotFound, Validation, type FieldErrors } from '../errors.ts';
import { isStorable, NOT_STORABLE, storableString } from '../storable.ts';
import { isCalendarDate, parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const FIELD_TYPES = ['text', 'number', 'date', 'boolean'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

// the reserved names are subscriber columns: a custom field with one of them would shadow it in CSV headers
const RESERVED = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'id',
  'created_at',
  'updated_at',
  'groups',
  'group_ids',
];

export const NewField = z.object({
  key: z
    .string()
    .trim()
    .toLowerCase()
    .regex(
      /^[a-z][a-z0-9_]{0,62}$/,
      'Key must start with a letter and contain only letters, digits and underscores (max 63)',
    )
    .refine((k) => !RESERVED.includes(k), 'Key is reserved'),
  name: storableString().trim().min(1).max(200).optional(),
  type: z.enum(FIELD_TYPES).default('text'),
});
export type NewField = z.input<typeof NewField>;

export const FieldRename = z.object({
  name: storableString({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(200, 'Name must be at most 200 characters'),
});
export type FieldRename = z.input<typeof FieldRename>;

export interface Field {
  id: string;
  key: string;
  name: string;
  type: FieldType;
  created_at: Date;
}

export function list(db: Db, accountId: string): Promise<Field[]> {
  return repo.list(db, accountId);
}

export async function create(db: Db, accountId: string, input: unknown): Promise<Field> {
  const f = parseInput(NewField, input);
  const row = await repo.insert(db, accountId, { key: f.key, name: f.name ?? f.key, type: f.type });
  if (!row) throw new Conflict('Field already exists');
  return row;
}

/** A new display name; the key (what values, CSV headers and segment rules use) stays. */
export async function rename(db: Db, accountId: string, fieldId: string, input: unknown): Promise<Field> {
  const { name } = parseInput(FieldRename, input);
  const row = await repo.rename(db, accountId, fieldId, name);
  if (!row) throw new NotFound('Field not found');
  return row;
}

export async function remove(db: Db, accountId: string, fieldId: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const field = await repo.remove(trx, accountId, fieldId);
    if (!field) throw new NotFound('Field not found');
    // the values go with their definition, so a re-created field of another type starts clean
    await repo.dropValues(trx, accountId, field.key);
  });
}

export async function definitions(db: Db, accountId: string): Promise<Map<string, FieldType>> {
  const rows = await repo.types(db, accountId);
  return new Map(rows.map((r) => [r.key, r.type]));
}

/** Coerces one value to a field type; undefined means it does not fit. null clears the value. */
export function coerceValue(type: FieldType, value: unknown): string | number | boolean | null | undefined {
  if (value === null) return null;
  switch (type) {
    case 'text':
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : undefined;
    case 'number': {
      if (typeof value === 'string' && value.trim() === '') return null;
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const s = String(value).trim().toLowerCase();
      if (['true', '1', 'yes'].includes(s)) return true;
      if (['false', '0', 'no'].includes(s)) return false;
      return s === '' ? null : undefined;
    }
    case 'date': {
      if (typeof value !== 'string') return undefined;
      const s = value.trim();
      if (s === '') return null;
      // a date-time keeps its day; the day must be one PostgreSQL can cast (segment rules compare them as dates)
      const day = s.slice(0, 10);
      return isCalendarDate(day) ? day : undefined;
    }
  }
}

const TYPE_MESSAGE: Record<FieldType, string> = {
  text: 'Must be a string',
  number: 'Must be a number',
  boolean: 'Must be true or false',
  date: 'Must be a date (YYYY-MM-DD)',
};

/** Checks keys against the definitions and coerces values; throws Validation naming each bad key. */
export function coerceWith(defs: Map<string, FieldType>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [key, value] of Object.entries(values)) {
    const type = defs.get(key);
    if (!type) {
      errors[`custom_fields.${key}`] = [`Unknown custom field: ${key}`];
      continue;
    }
    const coerced = typeof value === 'string' && !isStorable(value) ? undefined : coerceValue(type, value);
    if (coerced === undefined)
      errors[`custom_fields.${key}`] = [
        typeof value === 'string' && !isStorable(value) ? NOT_STORABLE : TYPE_MESSAGE[type],
      ];
    else out[key] = coerced;
  }
  if (Object.keys(errors).length > 0) throw Validation.of(errors);
  return out;
}

export async function coerce(
  db: Db,
  accountId: string,
  values: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (Object.keys(values).length === 0) return {};
  return coerceWith(await definitions(db, accountId), values);
}

export type { FieldRow };
