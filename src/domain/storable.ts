// The one rule for text the service accepts, at every door (REST, admin, dashboard API, public pages,
// MCP arguments, CSV cells): no NUL (PostgreSQL's text and jsonb refuse it), no other control character
// but tab, line feed and carriage return (C0, DEL and C1: invisible, they break headers, logs and CSV
// exports), no unpaired UTF-16 surrogate (jsonb refuses the \ud800 escape JSON.stringify writes for one).
// Accepted text is normalised to NFC, so "é" typed two ways is one name, one search and one unique key.
// Lengths are each field's own schema's business.
import { z } from 'zod';
import { Validation } from './errors.ts';

export const NOT_STORABLE = 'Must not contain NUL, control characters or unpaired surrogates';

const REFUSED =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const REFUSED_ALL = new RegExp(REFUSED.source, 'g');
/** Only text outside ASCII can change under NFC; the test skips normalize() for the common case. */
const NOT_ASCII = /[^\u0000-\u007F]/;

export function isStorable(s: string): boolean {
  return !REFUSED.test(s);
}

/** NFC, without the cost of normalize() on plain ASCII. */
export function nfc(s: string): string {
  return NOT_ASCII.test(s) ? s.normalize('NFC') : s;
}

/** Refused characters replaced by U+FFFD, for text we must keep whatever it holds (a provider's bounce report). */
export function replaceUnstorable(s: string): string {
  return nfc(s.replace(REFUSED_ALL, '\uFFFD'));
}

/** replaceUnstorable on every string of a parsed JSON value, in place. */
export function replaceUnstorableIn(value: object): void {
  const stack: object[] = [value];
  while (stack.length > 0) {
    const v = stack.pop() as Record<string, unknown>;
    for (const k of Object.keys(v)) {
      const child = v[k];
      if (typeof child === 'string') {
        const clean = replaceUnstorable(child);
        if (clean !== child) setOwn(v, k, clean);
      } else if (child !== null && typeof child === 'object') stack.push(child);
    }
  }
}

/** defineProperty: a JSON key "__proto__" is an own property, and plain assignment would set the prototype. */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/** z.string() that refuses text the rule refuses. */
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
  return walk(value, false).path;
}

/**
 * Checks every string of a parsed JSON value (or form/query object) and normalises the accepted ones to
 * NFC in place. Returns the path of the first refused string, or the value itself (a root string cannot
 * be changed in place, so the caller takes the returned value).
 */
export function acceptText(value: unknown): { path: string } | { path?: undefined; value: unknown } {
  return walk(value, true);
}

function walk(value: unknown, normalise: boolean): { path: string } | { path?: undefined; value: unknown } {
  if (typeof value === 'string') return isStorable(value) ? { value: normalise ? nfc(value) : value } : { path: '_' };
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const child = v[i];
        const p = path ? `${path}.${i}` : String(i);
        if (typeof child === 'string') {
          if (!isStorable(child)) return { path: p };
          if (normalise) v[i] = nfc(child);
        } else if (child !== null && typeof child === 'object') stack.push([child, p]);
      }
    } else if (v !== null && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      for (const k of Object.keys(obj)) {
        if (!isStorable(k)) return { path: path || '_' };
        const child = obj[k];
        const p = path ? `${path}.${k}` : k;
        if (typeof child === 'string') {
          if (!isStorable(child)) return { path: p };
          if (normalise) {
            const n = nfc(child);
            if (n !== child) setOwn(obj, k, n);
          }
        } else if (child !== null && typeof child === 'object') stack.push([child, p]);
      }
    }
  }
  return { value };
}
