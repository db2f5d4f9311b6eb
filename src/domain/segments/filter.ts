// The segment rule tree and its compilation to a parameterised WHERE on `subscribers`.
// Never raw SQL from users: fields and operators come from whitelists, values are bound parameters.
// CONTRACT (used by campaigns' audience and automations' condition step):
//   SegmentFilter             zod schema of {match:'all'|'any', rules:[rule|group…]} (structure + every check
//                             that needs no database; custom-field types are checked by compileFor)
//   whereMatches(f, types?)   (eb) => Expression<SqlBool> over the table `subscribers` (no alias), for filters
//                             already validated; `types` are the account's custom-field types (fields.definitions)
//   compileFor(db, acc, f)    validates against the account's field definitions and groups, then whereMatches
// Semantics (docs/segments.md): text compares case-insensitively; a value that is not set never matches a
// positive operator and always matches its negation (neq, not_contains, not_in); a stored custom value of
// the wrong JSON type counts as not set, so bad data can never raise an SQL error.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { Filter, FilterRule } from '../../db/schema/segments.ts';
import { Validation, type FieldErrors } from '../errors.ts';
import * as fields from '../subscribers/fields.ts';
import * as groups from '../subscribers/groups.ts';
import { likePattern } from '../likePattern.ts';
import { parseInput } from '../validation.ts';
import type { Where } from './queries.ts';
import { checkRules, MAX_DEPTH, MAX_RULES, resolveKind, type FieldTypes, type Operator } from './rules.ts';

// the stored shape is the table's column type; this module is what makes a stored filter valid
export type Rule = FilterRule;
export type { Filter };
export type { FieldTypes } from './rules.ts';

const RuleShape = z.object({
  field: z
    .string()
    .describe(
      'email, first_name, last_name, phone, status, created_at, custom_fields.<key>, group, campaign_opened or campaign_clicked',
    ),
  operator: z
    .string()
    .describe(
      'eq, neq, contains, not_contains, starts_with, ends_with, gt, gte, lt, lte, before, after, within_last_days, is_set, is_not_set, in, not_in (which ones depend on the field)',
    ),
  value: z
    .unknown()
    .optional()
    .describe('string, number, boolean, ISO date, UUID, or an array of them for in/not_in; omit for is_set/is_not_set'),
});

/**
 * One schema per nesting level instead of a recursive one: zod recurses on the input, and a hostile
 * 2,000-level filter (~100 kB of JSON) overflowed the stack (a 500) before any depth check could run.
 * Below the last allowed level a group is read shallowly (its rules are not descended into), so parsing
 * stays bounded and checkRules reports "nested at most 5 levels" at the right path.
 */
const TooDeepGroup = z.object({ match: z.string(), rules: z.array(z.unknown()) });
const ITEM_ERROR = 'Each rule needs field and operator (or match and rules for a nested group)';

function levelShape(depth: number): z.ZodType<Filter> {
  const item = z.union([RuleShape, depth >= MAX_DEPTH ? TooDeepGroup : levelShape(depth + 1)], { error: ITEM_ERROR });
  return z.object({
    match: z.enum(['all', 'any'], { error: 'match must be "all" or "any"' }),
    rules: z
      .array(item)
      .min(1, 'At least one rule is required')
      .max(MAX_RULES, `A filter can have at most ${MAX_RULES} rules`),
  }) as unknown as z.ZodType<Filter>;
}
const FilterShape = levelShape(1);

export const SegmentFilter: z.ZodType<Filter> = FilterShape.superRefine((filter, ctx) => {
  for (const p of checkRules(filter)) ctx.addIssue({ code: 'custom', message: p.message, path: p.path });
}) as z.ZodType<Filter>;

/** Parses and checks a filter against the account's field definitions and groups; throws Validation. */
export async function validateFor(db: Db, accountId: string, input: unknown, prefix = 'filter.'): Promise<Filter> {
  const filter = parseInput(FilterShape, input, prefix);
  const types = await fields.definitions(db, accountId);
  const problems = checkRules(filter, types);
  const groupIds = problems.length ? [] : collectGroupIds(filter);
  if (groupIds.length) {
    const found = await groups.existingIds(db, accountId, [...new Set(groupIds.map((g) => g.id))]);
    for (const g of groupIds)
      if (!found.has(g.id)) problems.push({ path: g.path, message: `Group not found: ${g.id}` });
  }
  if (problems.length) {
    const errors: FieldErrors = {};
    for (const p of problems) (errors[prefix + p.path.join('.')] ??= []).push(p.message);
    throw Validation.of(errors);
  }
  return normalise(filter);
}

/** validateFor + whereMatches with the account's custom-field types. */
export async function compileFor(db: Db, accountId: string, input: unknown): Promise<Where> {
  const filter = await validateFor(db, accountId, input);
  return whereMatches(filter, await fields.definitions(db, accountId));
}

function collectGroupIds(f: Filter, path: (string | number)[] = []): { id: string; path: (string | number)[] }[] {
  return f.rules.flatMap((r, i) => {
    if ('match' in r) return collectGroupIds(r, [...path, 'rules', i]);
    if (r.field !== 'group' || r.value === undefined) return [];
    const ids = Array.isArray(r.value) ? (r.value as string[]) : [r.value as string];
    return ids.map((id) => ({ id: id.toLowerCase(), path: [...path, 'rules', i, 'value'] }));
  });
}

/** Lower-cases ids (stored events and memberships hold lower-case UUIDs) and drops unused values. */
function normalise(f: Filter): Filter {
  return {
    match: f.match,
    rules: f.rules.map((r) => {
      if ('match' in r) return normalise(r);
      if (r.operator === 'is_set' || r.operator === 'is_not_set') return { field: r.field, operator: r.operator };
      const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
      const isId = r.field === 'group' || r.field === 'campaign_opened' || r.field === 'campaign_clicked';
      return {
        field: r.field,
        operator: r.operator,
        value: isId ? (Array.isArray(r.value) ? r.value.map(lower) : lower(r.value)) : r.value,
      };
    }),
  };
}

/**
 * Compiles a validated filter. `types` (custom field key → type) decides how custom_fields.<key> compares;
 * without it the type is inferred from the operator and value. `table` is the name or alias the caller's
 * query gives `subscribers` (code-chosen, never user input).
 */
export function whereMatches(filter: Filter, types?: FieldTypes, table = 'subscribers'): Where {
  const expr = compileNode(filter, types, table);
  return () => expr;
}

function compileNode(f: Filter, types: FieldTypes | undefined, t: string): RawBuilder<SqlBool> {
  const parts = f.rules.map((r) => ('match' in r ? compileNode(r, types, t) : compileRule(r, types, t)));
  return sql<SqlBool>`(${sql.join(parts, f.match === 'all' ? sql` and ` : sql` or `)})`;
}

const NEGATED: Partial<Record<Operator, Operator>> = {
  neq: 'eq',
  not_contains: 'contains',
  not_in: 'in',
  is_not_set: 'is_set',
};

function compileRule(r: Rule, types: FieldTypes | undefined, t: string): RawBuilder<SqlBool> {
  const op = r.operator as Operator;
  const positive = NEGATED[op];
  // the negation of a never-null positive expression: "not set" matches neq / not_contains / not_in
  if (positive) return sql<SqlBool>`not ${compilePositive(r.field, positive, r.value, types, t)}`;
  return compilePositive(r.field, op, r.value, types, t);
}

/** An expression that is never NULL, so `not (…)` and and/or trees behave as two-valued logic. */
function compilePositive(
  field: string,
  op: Operator,
  value: unknown,
  types: FieldTypes | undefined,
  t: string,
): RawBuilder<SqlBool> {
  const kind = resolveKind(field, op, value, types);
  if (!kind) return sql<SqlBool>`false`;
  const col = (name: string) => sql.ref(`${t}.${name}`);
  switch (kind) {
    case 'email':
    case 'text': {
      const c = field.startsWith('custom_fields.') ? customText(t, field) : col(field);
      return compileText(c, op, value);
    }
    case 'status':
      return op === 'in'
        ? sql<SqlBool>`(${col('status')} = any(${value}::text[]))`
        : sql<SqlBool>`(${col('status')} = ${value}::text)`;
    case 'created_at':
      return compileTimestamp(col('created_at'), op, value);
    case 'number':
      return compileNumber(t, field, op, value);
    case 'date':
      return compileDate(t, field, op, value);
    case 'boolean': {
      const v = sql`${col('custom_fields')} -> ${keyOf(field)}::text`;
      if (op === 'is_set') return sql<SqlBool>`coalesce(jsonb_typeof(${v}) = 'boolean', false)`;
      return sql<SqlBool>`coalesce(${v} = ${JSON.stringify(value === true)}::jsonb, false)`;
    }
    case 'group': {
      const ids = Array.isArray(value) ? value : [value];
      return sql<SqlBool>`exists (select 1 from subscriber_groups sg where sg.subscriber_id = ${col('id')} and sg.group_id = any(${ids}::uuid[]))`;
    }
    case 'campaign': {
      const type = field === 'campaign_opened' ? 'email.opened' : 'email.clicked';
      return sql<SqlBool>`exists (select 1 from events ev where ev.subscriber_id = ${col('id')} and ev.type = ${type}::text and ev.data ->> 'campaign_id' = ${String(value).toLowerCase()}::text)`;
    }
  }
}

const keyOf = (field: string) => field.slice('custom_fields.'.length);

/** A custom text value, or NULL when missing or not a JSON string. */
function customText(t: string, field: string): RawBuilder<string | null> {
  const cf = sql.ref(`${t}.custom_fields`);
  const k = keyOf(field);
  return sql`(case when jsonb_typeof(${cf} -> ${k}::text) = 'string' then ${cf} ->> ${k}::text end)`;
}

function compileText(
  c: RawBuilder<unknown> | ReturnType<typeof sql.ref>,
  op: Operator,
  value: unknown,
): RawBuilder<SqlBool> {
  switch (op) {
    case 'eq':
      return sql<SqlBool>`(${c} is not null and lower(${c}) = ${String(value).toLowerCase()}::text)`;
    case 'in':
      return sql<SqlBool>`(${c} is not null and lower(${c}) = any(${(value as string[]).map((v) => v.toLowerCase())}::text[]))`;
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      return sql<SqlBool>`(${c} is not null and lower(${c}) like ${likePattern(String(value), op)}::text)`;
    case 'is_set':
      return sql<SqlBool>`(${c} is not null and ${c} <> '')`;
    default:
      throw new Error(`operator ${op} reached the text compiler unchecked`);
  }
}

const CMP: Partial<Record<Operator, RawBuilder<unknown>>> = {
  gt: sql`>`,
  gte: sql`>=`,
  lt: sql`<`,
  lte: sql`<=`,
  before: sql`<`,
  after: sql`>`,
  eq: sql`=`,
};

function compileTimestamp(c: ReturnType<typeof sql.ref>, op: Operator, value: unknown): RawBuilder<SqlBool> {
  if (op === 'within_last_days')
    return sql<SqlBool>`(${c} >= ${new Date(Date.now() - Number(value) * 86_400_000).toISOString()}::timestamptz)`;
  return sql<SqlBool>`(${c} ${CMP[op]!} ${toInstant(String(value))}::timestamptz)`;
}

/** 'YYYY-MM-DD' means midnight UTC; a datetime keeps its offset. */
function toInstant(value: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00.000Z` : new Date(value).toISOString();
}

function compileNumber(t: string, field: string, op: Operator, value: unknown): RawBuilder<SqlBool> {
  const cf = sql.ref(`${t}.custom_fields`);
  const k = keyOf(field);
  if (op === 'is_set') return sql<SqlBool>`coalesce(jsonb_typeof(${cf} -> ${k}::text) = 'number', false)`;
  // CASE, not AND: PostgreSQL may evaluate AND operands in any order, and the cast must only see numbers
  const n = sql`(case when jsonb_typeof(${cf} -> ${k}::text) = 'number' then (${cf} ->> ${k}::text)::numeric end)`;
  if (op === 'in') return sql<SqlBool>`coalesce(${n} = any(${(value as number[]).map(String)}::numeric[]), false)`;
  return sql<SqlBool>`coalesce(${n} ${CMP[op]!} ${String(value)}::numeric, false)`;
}

function compileDate(t: string, field: string, op: Operator, value: unknown): RawBuilder<SqlBool> {
  const cf = sql.ref(`${t}.custom_fields`);
  const k = keyOf(field);
  // dates are stored as 'YYYY-MM-DD' strings (fields.coerceValue); compared as text, never cast
  const d = sql`(case when jsonb_typeof(${cf} -> ${k}::text) = 'string' and (${cf} ->> ${k}::text) ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then ${cf} ->> ${k}::text end)`;
  if (op === 'is_set') return sql<SqlBool>`(${d} is not null)`;
  if (op === 'within_last_days') {
    const today = new Date().toISOString().slice(0, 10);
    const from = new Date(Date.now() - Number(value) * 86_400_000).toISOString().slice(0, 10);
    return sql<SqlBool>`coalesce(${d} >= ${from}::text and ${d} <= ${today}::text, false)`;
  }
  return sql<SqlBool>`coalesce(${d} ${CMP[op]!} ${String(value)}::text, false)`;
}

/** Whether a rule anywhere in the filter reads campaign activity (opens, clicks), not only subscribers and groups. */
export function readsActivity(filter: Filter): boolean {
  return filter.rules.some((r) =>
    'match' in r ? readsActivity(r) : r.field === 'campaign_opened' || r.field === 'campaign_clicked',
  );
}
