// Small shared pieces of the dashboard's pages: form fields with their errors, status messages,
// tables' empty state, pagination, dates. Plain elements, labelled for screen readers.
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { ApiError } from './api.ts';

export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string[];
  hint?: string;
  children: (id: string, describedBy?: string) => ReactNode;
}) {
  const id = `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  const describedBy = error?.length ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id, describedBy)}
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

export function Alert({
  error,
  children,
  kind = 'error',
}: {
  error?: unknown;
  children?: ReactNode;
  kind?: 'error' | 'success' | 'warning';
}) {
  const text =
    error instanceof Error
      ? error instanceof ApiError && error.detail
        ? `${error.message}: ${error.detail}`
        : error.message
      : children;
  if (!text) return null;
  return (
    <div className={`alert alert-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {text}
    </div>
  );
}

/** Loads data for a page; reload() fetches again (after a change). */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function Pager({ page, lastPage, onPage }: { page: number; lastPage: number; onPage: (p: number) => void }) {
  if (lastPage <= 1) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {lastPage}
      </span>
      <button type="button" className="secondary" disabled={page >= lastPage} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
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
