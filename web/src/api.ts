// The dashboard's only way to the server: JSON calls to /app/api with the session cookie and the CSRF
// header the server requires on every state-changing request. Failures become ApiError with the field map.
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
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
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
  del: <T>(path: string) => call<T>('DELETE', path),
};

/** Query string from defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}

// Wire shapes (the same field names as the JSON API)
/** How people responded to sent email, as campaign and automation stats both count it. */
export interface Engagement {
  opens: number;
  unique_opens: number;
  clicks: number;
  unique_clicks: number;
  unsubscribes: number;
  bounces: number;
  complaints: number;
  soft_bounces: number;
}

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export type Permission = 'read' | 'edit' | 'manage';
export interface Me {
  user: { id: string; email: string; name: string | null; idp_user_id: string };
  account: { id: string; name: string };
  role: Role;
  sign_in: 'password' | 'oidc';
  permissions: Permission[];
  accounts: { account_id: string; account_name: string; role: Role }[];
}
export interface ApiKey {
  id: string;
  name: string;
  scopes: string[];
  hint: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}
export interface Subscriber {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  status: string;
  source: string;
  custom_fields: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
export interface ImportJob {
  job_id: string;
  status: string;
  message: string;
  file_name: string | null;
  total_rows: number;
  processed_rows: number;
  created_count: number;
  updated_count: number;
  failed_count: number;
  errors: { row: number; email: string | null; reason: string }[];
  created_at: string;
  finished_at: string | null;
}
export interface Meta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
}
export interface Audience {
  fields: { field: string; label: string; kind: string; key?: string }[];
  operators: Record<string, string[]>;
  statuses: string[];
  groups: { id: string; name: string }[];
}
