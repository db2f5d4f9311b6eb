// Small shared pieces of the dashboard's pages: form fields with their errors, status messages, badges,
// dates and rates. Plain elements, labelled for screen readers. Tables are lib/table.tsx.
import { useState, type ReactNode } from 'react';
import { ApiError } from './api/client.ts';

// Each submit or submit-button press is a new attempt (counted before the page's own handlers run); a field
// edited since the last one hides its old message.
let attempts = 0;
if (typeof document !== 'undefined') {
  document.addEventListener('submit', () => attempts++, true);
  document.addEventListener(
    'click',
    (e) => {
      const button = (e.target as Element | null)?.closest?.('button');
      if (button?.type === 'submit') attempts++;
    },
    true,
  );
}

export function Field({
  label,
  error,
  hint,
  children,
  id: given,
}: {
  id?: string;
  label: string;
  error?: string[];
  hint?: string;
  children: (id: string, describedBy?: string, invalid?: boolean) => ReactNode;
}) {
  const id = given ?? `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  // a message goes away once its field is edited, and comes back only with the next attempt's answer
  const [editedIn, setEditedIn] = useState<number>();
  if (editedIn === attempts) error = undefined;
  const describedBy = error?.length ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="field" onInput={() => error?.length && setEditedIn(attempts)}>
      <label htmlFor={id}>{label}</label>
      {children(id, describedBy, error?.length ? true : undefined)}
      {hint && !error?.length && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error?.length ? (
        <p className="field-error" id={`${id}-error`}>
          {error[0]}
        </p>
      ) : null}
    </div>
  );
}

/**
 * A banner for a failed call or a message. A validation failure names its fields next to them, so the
 * banner says so in words; `shown` lists the fields the form displays, and the others are spelled out here
 * (with a readable name, never the wire key).
 */
export function Alert({
  error,
  children,
  kind = 'error',
  shown,
}: {
  error?: unknown;
  children?: ReactNode;
  kind?: 'error' | 'success' | 'warning';
  shown?: string[];
}) {
  let text: ReactNode = children;
  if (error instanceof ApiError && Object.keys(error.fields).length > 0) {
    const hidden = Object.entries(error.fields).filter(([k]) => shown && !shown.includes(k));
    text = hidden.length
      ? hidden.map(([k, m]) => `${readableField(k)}: ${withoutKey(m[0] ?? '')}`).join(' · ')
      : 'Please correct the fields marked below.';
  } else if (error instanceof Error)
    text = error instanceof ApiError && error.detail ? `${error.message}: ${withoutKey(error.detail)}` : error.message;
  if (!text) return null;
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {text}
    </div>
  );
}

/** "content_source" → "Content source"; "filter.rules.0.value" → "Filter rules 0 value". */
export function readableField(key: string): string {
  const words = key.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Server messages may start with the field's wire name ("subject: …"); the page already says which field. */
export function withoutKey(message: string): string {
  return message.replace(/^[a-z_][a-z0-9_.]*: /, '');
}

/** The first message for a field, without its wire key. */
export function fieldError(error: unknown, key: string): string[] | undefined {
  const m = error instanceof ApiError ? error.fields[key] : undefined;
  return m?.length ? [withoutKey(m[0]!)] : undefined;
}

export function formatDate(value: string | null | undefined, empty = '—'): string {
  if (!value) return empty;
  return new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function Loading() {
  return (
    <p className="muted" aria-live="polite">
      Loading…
    </p>
  );
}

export function Badge({
  tone = 'neutral',
  children,
}: {
  tone?: 'neutral' | 'good' | 'bad' | 'warn';
  children: ReactNode;
}) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

/** 0.1234 → "12.3 %"; null → "—". */
/** A bar filled to `value` percent (0–100), read out by screen readers as a meter with its label. */
export function Meter({ value, label }: { value: number; label: string }) {
  const v = Math.max(0, Math.min(100, value));
  return (
    <div
      className="meter"
      role="meter"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(v)}
      aria-label={label}
    >
      <span style={{ width: `${v}%` }} />
    </div>
  );
}

export function percent(rate: number | null | undefined): string {
  if (rate === null || rate === undefined) return '—';
  return `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}

/** 1 → "1 subscriber", 1204 → "1,204 subscribers": a count with its noun in the right number, never "1 subscribers". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
