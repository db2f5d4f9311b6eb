// Which operators each segment field takes and which values they need.
// checkRules walks a structurally valid filter and names every problem by its path, so faces can say
// "rules.0.operator: Operator gt is not valid for field email". Also enforces the depth and size limits.
import { z } from 'zod';
import { STATUSES } from '../subscribers/subscribers.ts';
import type { FieldType } from '../subscribers/fields.ts';
import { isCalendarDate, isInstant } from '../validation.ts';

export const OPERATORS = [
  'eq',
  'neq',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'before',
  'after',
  'within_last_days',
  'is_set',
  'is_not_set',
  'in',
  'not_in',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const FIELDS = [
  'email',
  'first_name',
  'last_name',
  'phone',
  'status',
  'created_at',
  'group',
  'campaign_opened',
  'campaign_clicked',
] as const;

/** How a field compares: the built-in columns, the four custom-field types, memberships and engagement. */
export type Kind = 'email' | 'text' | 'status' | 'created_at' | 'number' | 'date' | 'boolean' | 'group' | 'campaign';
export type FieldTypes = ReadonlyMap<string, FieldType>;

export const OPERATORS_BY_KIND: Record<Kind, readonly Operator[]> = {
  email: ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in'],
  text: ['eq', 'neq', 'contains', 'not_contains', 'starts_with', 'ends_with', 'in', 'not_in', 'is_set', 'is_not_set'],
  status: ['eq', 'neq', 'in', 'not_in'],
  created_at: ['before', 'after', 'gt', 'gte', 'lt', 'lte', 'within_last_days'],
  number: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'not_in', 'is_set', 'is_not_set'],
  date: ['eq', 'neq', 'before', 'after', 'gt', 'gte', 'lt', 'lte', 'within_last_days', 'is_set', 'is_not_set'],
  boolean: ['eq', 'neq', 'is_set', 'is_not_set'],
  group: ['eq', 'neq', 'in', 'not_in'],
  campaign: ['eq', 'neq'],
};

/** nesting levels (the top filter is level 1) and leaf rules per filter: a filter is a query, keep it bounded */
export const MAX_DEPTH = 5;
export const MAX_RULES = 100;
const MAX_LIST = 1000;
const CUSTOM_KEY = /^custom_fields\.([a-z][a-z0-9_]{0,62})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

type Path = (string | number)[];
export interface Problem {
  path: Path;
  message: string;
}
type RuleLike = { field: string; operator: string; value?: unknown };
type FilterLike = { match: 'all' | 'any'; rules: (RuleLike | FilterLike)[] };

const BUILT_IN: Record<string, Kind> = {
  email: 'email',
  first_name: 'text',
  last_name: 'text',
  phone: 'text',
  status: 'status',
  created_at: 'created_at',
  group: 'group',
  campaign_opened: 'campaign',
  campaign_clicked: 'campaign',
};

/**
 * The kind of a field. Custom fields take their type from `types`; without a definition the type is
 * inferred from the operator and value (callers of whereMatches that hold no definitions).
 */
export function kindOf(field: string, op: string, value: unknown, types?: FieldTypes): Kind {
  const builtIn = BUILT_IN[field];
  if (builtIn) return builtIn;
  const defined = types?.get(field.slice('custom_fields.'.length));
  if (defined) return defined;
  const sample = Array.isArray(value) ? value[0] : value;
  if (typeof sample === 'boolean') return 'boolean';
  if (typeof sample === 'number' && op !== 'within_last_days') return 'number';
  if (['before', 'after', 'within_last_days'].includes(op)) return 'date';
  if (['gt', 'gte', 'lt', 'lte'].includes(op))
    return typeof sample === 'string' && DATE.test(sample) ? 'date' : 'number';
  return 'text';
}

/**
 * The kind to compile a rule with: the field's own kind when the operator and value fit it, else the
 * inferred one (a custom field deleted or re-created with another type since the filter was saved);
 * undefined when nothing fits, which compiles to a rule that matches no one.
 */
export function resolveKind(field: string, op: Operator, value: unknown, types?: FieldTypes): Kind | undefined {
  const fits = (k: Kind) =>
    OPERATORS_BY_KIND[k].includes(op) &&
    (op === 'is_set' || op === 'is_not_set' || checkValue(k, op, value) === undefined);
  const own = kindOf(field, op, value, types);
  if (fits(own)) return own;
  const inferred = kindOf(field, op, value);
  return field.startsWith('custom_fields.') && fits(inferred) ? inferred : undefined;
}

/** Every problem of a structurally valid filter. With `types`, custom fields must be defined. */
export function checkRules(filter: FilterLike, types?: FieldTypes): Problem[] {
  const problems: Problem[] = [];
  let leaves = 0;
  const walk = (f: FilterLike, path: Path, depth: number) => {
    if (depth > MAX_DEPTH) {
      problems.push({ path, message: `Rule groups can be nested at most ${MAX_DEPTH} levels deep` });
      return;
    }
    f.rules.forEach((r, i) => {
      if ('match' in r) return walk(r, [...path, 'rules', i], depth + 1);
      leaves++;
      problems.push(...checkRule(r, [...path, 'rules', i], types));
    });
  };
  walk(filter, [], 1);
  if (leaves > MAX_RULES)
    problems.unshift({ path: ['rules'], message: `A filter can have at most ${MAX_RULES} rules (it has ${leaves})` });
  return problems;
}

function checkRule(r: RuleLike, path: Path, types?: FieldTypes): Problem[] {
  const at = (key: string, message: string): Problem[] => [{ path: [...path, key], message }];
  const custom = CUSTOM_KEY.exec(r.field);
  if (!BUILT_IN[r.field] && !custom)
    return at('field', `Unknown field ${r.field}: use one of ${FIELDS.join(', ')} or custom_fields.<key>`);
  if (custom && types && !types.has(custom[1]!)) return at('field', `Unknown custom field: ${custom[1]}`);
  if (!(OPERATORS as readonly string[]).includes(r.operator))
    return at('operator', `Unknown operator ${r.operator}: use one of ${OPERATORS.join(', ')}`);
  const op = r.operator as Operator;
  // without definitions a custom field may be any type: accept an operator that some type takes
  const kinds: Kind[] =
    custom && !types ? ['text', 'number', 'date', 'boolean'] : [kindOf(r.field, op, r.value, types)];
  const kind = kinds.find((k) => OPERATORS_BY_KIND[k].includes(op));
  if (!kind) return at('operator', `Operator ${op} is not valid for field ${r.field}`);
  if (op === 'is_set' || op === 'is_not_set') return [];
  const valueKind = custom && !types ? kindOf(r.field, op, r.value) : kind;
  const problem = checkValue(OPERATORS_BY_KIND[valueKind].includes(op) ? valueKind : kind, op, r.value);
  return problem ? at('value', problem) : [];
}

const Id = z.guid();
const isDate = isCalendarDate;
// created_at takes a day (midnight UTC) or an instant, both by the shared rules
const isInstantOrDate = (v: unknown) => isCalendarDate(v) || isInstant(v);

/** The message for a value that does not fit, or undefined. */
function checkValue(kind: Kind, op: Operator, value: unknown): string | undefined {
  if (value === undefined || value === null) return `A value is required for operator ${op}`;
  if (op === 'in' || op === 'not_in') {
    if (!Array.isArray(value) || value.length === 0) return `Operator ${op} needs a non-empty array of values`;
    if (value.length > MAX_LIST) return `Operator ${op} takes at most ${MAX_LIST} values`;
    const bad = value.find((v) => checkScalar(kind, 'eq', v) !== undefined);
    return bad === undefined ? undefined : checkScalar(kind, 'eq', bad);
  }
  if (op === 'within_last_days')
    return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 36_500
      ? undefined
      : 'Must be a whole number of days (0 to 36500)';
  return checkScalar(kind, op, value);
}

function checkScalar(kind: Kind, op: Operator, value: unknown): string | undefined {
  switch (kind) {
    case 'email':
    case 'text':
      if (typeof value !== 'string') return 'Must be a string';
      if (value.length > 1000) return 'Must be at most 1000 characters';
      return ['contains', 'starts_with', 'ends_with'].includes(op) && value === '' ? 'Must not be empty' : undefined;
    case 'status':
      return (STATUSES as readonly unknown[]).includes(value) ? undefined : `Must be one of: ${STATUSES.join(', ')}`;
    case 'created_at':
      return isInstantOrDate(value) ? undefined : 'Must be an ISO 8601 date (YYYY-MM-DD) or date-time with offset';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'Must be a number';
    case 'date':
      return isDate(value) ? undefined : 'Must be a date (YYYY-MM-DD)';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Must be true or false';
    case 'group':
      return Id.safeParse(value).success ? undefined : 'Must be a group id (UUID)';
    case 'campaign':
      return Id.safeParse(value).success ? undefined : 'Must be a campaign id (UUID)';
  }
}
