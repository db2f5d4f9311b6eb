// The dashboard's only way to the server: JSON calls to /app/api with the session cookie and the CSRF
// header the server requires on every state-changing request. Failures become ApiError with the field map.
// Pages do not call it themselves: each resource's calls, types and query keys are in web/src/api/<resource>.ts.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: Record<string, string[]> = {},
    readonly detail?: string,
  ) {
    super(message);
  }
}

type Envelope<T> =
  { success: true; data: T; message?: string } | { success: false; error: string; message?: string; data?: unknown };

/** Listeners told when any call comes back 401 (the session ended): the app shows sign-in again. */
export const onSignedOut = new Set<() => void>();

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`/app/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: {
      accept: 'application/json',
      ...(method !== 'GET' && { 'x-mailgrove-csrf': '1' }),
      ...(body !== undefined && !(body instanceof FormData) && { 'content-type': 'application/json' }),
    },
    body: body === undefined || body instanceof FormData ? body : JSON.stringify(body),
  });
  const json = (await res.json().catch(() => undefined)) as Envelope<T> | undefined;
  if (res.ok && json?.success) return json.data;
  if (res.status === 401 && !path.startsWith('/session')) onSignedOut.forEach((f) => f());
  const failed = json && !json.success ? json : undefined;
  const fields =
    res.status === 400 && failed?.data && typeof failed.data === 'object'
      ? (failed.data as Record<string, string[]>)
      : {};
  throw new ApiError(res.status, failed?.error ?? `Request failed (${res.status})`, fields, failed?.message);
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body?: unknown) => call<T>('POST', path, body ?? {}),
  put: <T>(path: string, body?: unknown) => call<T>('PUT', path, body ?? {}),
  patch: <T>(path: string, body?: unknown) => call<T>('PATCH', path, body ?? {}),
  del: (path: string) => call<Deleted>('DELETE', path),
  /** a multipart upload (a file with its fields), answered in the same envelope */
  upload: <T>(path: string, form: FormData) => call<T>('POST', path, form),
};

/** The address of a download or a frame the browser loads itself (CSV exports, a message's HTML). */
export const urlOf = (path: string) => `/app/api${path}`;

/** Query string from defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** Where a page of a dashboard list is (every list answers `{ <items>: [...], pagination }`). */
export interface Pagination {
  current_page: number;
  total_pages: number;
  total_count: number;
  per_page: number;
}

/** A list answer: its items under their plural name, and the pagination. */
export type ListOf<K extends string, T> = { [k in K]: T[] } & { pagination: Pagination };

/** What every delete answers. */
export interface Deleted {
  id: string;
  deleted: true;
}

/** Query-string values of a list: its page and size, and the list's own filters. */
export type ListQuery = Record<string, string | number | undefined>;
