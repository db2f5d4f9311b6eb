// Text PostgreSQL can store: no NUL character (text and jsonb refuse it) and no unpaired UTF-16
// surrogate (jsonb refuses the \ud800 escape JSON.stringify writes for one). Checked at the edge, so
// such input is a 400 naming the field instead of a database error and a 500.
import { z } from 'zod';
import { Validation } from './errors.ts';

export const NOT_STORABLE = 'Must not contain NUL characters or unpaired surrogates';

const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function isStorable(s: string): boolean {
  return !s.includes('\u0000') && !UNPAIRED_SURROGATE.test(s);
}

/** z.string() that refuses text PostgreSQL cannot store. */
export function storableString(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine(isStorable, NOT_STORABLE);
}

/** The refusal of text firstUnstorable found: "path: message", the path named even at the root ('_'). */
export function notStorableAt(path: string): Validation {
  return new Validation({ [path]: [NOT_STORABLE] }, `${path}: ${NOT_STORABLE}`);
}

/**
 * The path of the first string (value or key) in a JSON value that is not storable, or undefined.
 * Iterative: a 1 MB body can nest 500,000 levels deep, more than any call stack.
 */
export function firstUnstorable(value: unknown): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorable(v)) return path || '_';
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const p = path ? `${path}.${k}` : k;
        if (!isStorable(k)) return path || '_';
        stack.push([child, p]);
      }
    }
  }
  return undefined;
}
