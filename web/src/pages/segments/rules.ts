// The segment builder's rules as the page edits them (strings from inputs) and as the API takes them
// (numbers, booleans, lists). Which operators a field offers is the server's table (GET /app/api/audience).
export interface RuleDraft {
  field: string;
  operator: string;
  value: string;
}
export type { WireFilter, WireRule } from '../../api/segments.ts';
import type { WireFilter, WireRule } from '../../api/segments.ts';

export const OP_LABELS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  ends_with: 'ends with',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  before: 'before',
  after: 'after',
  within_last_days: 'within the last (days)',
  is_set: 'is set',
  is_not_set: 'is not set',
  in: 'is one of',
  not_in: 'is none of',
};

export const takesNoValue = (operator: string) => operator === 'is_set' || operator === 'is_not_set';
export const takesList = (operator: string) => operator === 'in' || operator === 'not_in';

/** The input a rule's value is typed in: a list is always text (comma-separated). */
export function inputTypeFor(operator: string, kind: string): 'number' | 'date' | 'text' {
  const list = takesList(operator);
  if (operator === 'within_last_days' || (kind === 'number' && !list)) return 'number';
  return (kind === 'date' || kind === 'created_at') && !list ? 'date' : 'text';
}

/** The wire rule: numbers as numbers, lists split on commas, booleans as booleans, nothing for is_set. */
export function toRule(r: RuleDraft, kind: string): WireRule {
  if (takesNoValue(r.operator)) return { field: r.field, operator: r.operator };
  // a blank number stays blank, so the server names the missing value instead of reading 0
  const one = (v: string): unknown =>
    kind === 'number' || r.operator === 'within_last_days'
      ? v.trim() === ''
        ? v
        : Number(v)
      : kind === 'boolean'
        ? v === 'true'
        : v.trim();
  const value = takesList(r.operator)
    ? r.value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
        .map(one)
    : one(r.value);
  return { field: r.field, operator: r.operator, value };
}

/** A saved rule back into the builder's strings. */
export function fromRule(r: WireRule): RuleDraft {
  const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));
  return {
    field: r.field,
    operator: r.operator,
    value: Array.isArray(r.value) ? r.value.map(text).join(', ') : text(r.value),
  };
}

/** The builder edits flat filters; nested groups (saved through the API) are shown, not edited. */
export function isFlat(filter: WireFilter): filter is { match: 'all' | 'any'; rules: WireRule[] } {
  return filter.rules.every((r) => !('match' in r));
}

/** Every rule has what its operator needs, so the draft is worth counting. */
export function isComplete(rules: RuleDraft[]): boolean {
  return rules.every((r) => takesNoValue(r.operator) || r.value.trim() !== '');
}
