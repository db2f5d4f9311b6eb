// Double opt-in sign-ups (/app/api/signups): those waiting for their confirmation link, mailed again, or
// confirmed by hand with a reason.
import { api, qs, type ListOf, type ListQuery } from './client.ts';

export interface Signup {
  id: string;
  /** null: a sign-up through the API (POST /subscribers with double_opt_in) without a form */
  form_id: string | null;
  form_name: string | null;
  email: string;
  first_name: string | null;
  last_name: string | null;
  status: 'pending' | 'confirmed' | 'expired';
  created_at: string;
  expires_at: string;
  last_sent_at: string | null;
  confirmed_at: string | null;
  subscriber_id: string | null;
  confirmed_by: string | null;
  confirm_reason: string | null;
}

export const signupKeys = {
  all: ['signups'] as const,
  page: (status: string, page: number) => ['signups', status, page] as const,
};

export const listSignups = (query: ListQuery & { status?: string }) =>
  api.get<ListOf<'signups', Signup>>(`/signups${qs(query)}`);
export const resendSignup = (id: string) => api.post<Signup>(`/signups/${encodeURIComponent(id)}/resend`);
export const confirmSignup = (id: string, reason: string) =>
  api.post<Signup>(`/signups/${encodeURIComponent(id)}/confirm`, { reason });
