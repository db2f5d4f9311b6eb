// Who is signed in and the session: first-run setup, password sign-in and sign-out, the signed-in member
// (`me`), switching account and changing one's password (/app/api/setup, /session, /me).
import { api } from './client.ts';

export type Role = 'owner' | 'admin' | 'editor' | 'viewer';
export type Permission = 'read' | 'edit' | 'manage';
export interface Me {
  user: { id: string; email: string; name: string | null; idp_user_id: string };
  account: { id: string; name: string };
  role: Role;
  sign_in: 'password' | 'oidc';
  permissions: Permission[];
  accounts: { account_id: string; account_name: string; role: Role }[];
  /** the member has two-factor sign-in on */
  two_factor?: boolean;
  /** links in mail (PUBLIC_URL) would point at an address recipients cannot reach */
  links_private?: boolean;
}
/** A right password signs in, or — with two-factor sign-in on — asks for the code against `challenge`. */
export type SignInStep = { signed_in: true } | { signed_in: false; two_factor_required: true; challenge: string };
export interface Setup {
  needs_owner: boolean;
  sign_in: 'password' | 'oidc';
}

export const sessionKeys = {
  me: ['me'] as const,
  setup: ['setup'] as const,
};

export const getMe = () => api.get<Me>('/me');
export const getSetup = () => api.get<Setup>('/setup');
export const signIn = (body: { email: unknown; password: unknown }) => api.post<SignInStep>('/session', body);
export const signOut = () => api.del('/session');
export const createOwner = (body: Record<string, unknown>) => api.post('/setup/owner', body);
export const switchAccount = (accountId: string) => api.put('/session/account', { account_id: accountId });
export const changePassword = (body: { current_password: unknown; new_password: unknown }) =>
  api.put('/session/password', body);
