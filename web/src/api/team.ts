// Joining and signing in safely: invitations (/app/api/invitations, and the public /invitation/* the
// invitation link uses), "Forgot password?" (/password-reset/*), the second factor (/session/two-factor*)
// and the member's own sessions (/sessions).
import { api, type Pagination } from './client.ts';
import type { Role, SignInStep } from './session.ts';

export interface Invitation {
  id: string;
  email: string;
  name: string | null;
  role: Exclude<Role, 'owner'>;
  created_at: string;
  sent_at: string;
  expires_at: string;
  invited_by?: string | null;
  sent?: boolean;
}
export interface InvitationPreview {
  account_name: string;
  email: string;
  name: string | null;
  role: Role;
  expires_at: string;
  has_password: boolean;
}
export interface TwoFactorStatus {
  enabled: boolean;
  recovery_codes_left: number;
}
export interface Enrolment {
  secret: string;
  uri: string;
  /** the QR code as an SVG data URL, made by the server */
  qr: string;
}
export interface SessionInfo {
  id: string;
  created_at: string;
  last_seen_at: string;
  client: string;
  ip: string | null;
  current: boolean;
}

export const teamKeys = {
  invitations: ['invitations'] as const,
  twoFactor: ['two-factor'] as const,
  sessions: ['sessions'] as const,
  invitationLink: (token: string) => ['invitation-link', token] as const,
  resetLink: (token: string) => ['reset-link', token] as const,
};

export const listInvitations = () =>
  api.get<{ invitations: Invitation[]; pagination: Pagination }>('/invitations').then((r) => r.invitations);
export const invite = (body: { email: unknown; name: unknown; role: unknown }) =>
  api.post<Invitation>('/invitations', body);
export const resendInvitation = (id: string) => api.post<Invitation>(`/invitations/${id}/resend`);
export const revokeInvitation = (id: string) => api.del(`/invitations/${id}`);

export const previewInvitation = (token: string) => api.post<InvitationPreview>('/invitation/preview', { token });
export const acceptInvitation = (body: { token: string; name?: unknown; password: unknown }) =>
  api.post<SignInStep>('/invitation/accept', body);

export const requestPasswordReset = (email: unknown) => api.post('/password-reset', { email });
export const checkPasswordReset = (token: string) => api.post('/password-reset/check', { token });
export const completePasswordReset = (body: { token: string; password: unknown }) =>
  api.post('/password-reset/complete', body);

export const secondFactor = (body: { challenge: string; code: unknown }) =>
  api.post<{ signed_in: true }>('/session/two-factor', body);
export const getTwoFactor = () => api.get<TwoFactorStatus>('/session/two-factor');
export const startEnrolment = () => api.post<Enrolment>('/session/two-factor/setup');
export const enableTwoFactor = (code: unknown) =>
  api.post<{ recovery_codes: string[] }>('/session/two-factor/enable', { code });
export const disableTwoFactor = (body: { password: unknown; code: unknown }) =>
  api.post('/session/two-factor/disable', body);

export const listSessions = () =>
  api.get<{ sessions: SessionInfo[]; pagination: Pagination }>('/sessions').then((r) => r.sessions);
export const endSession = (id: string) => api.del(`/sessions/${id}`);
export const endOtherSessions = () => api.post<{ ended: number }>('/sessions/sign-out-others');
