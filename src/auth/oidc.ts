// OpenID Connect sign-in for the dashboard, through openid-client: authorization code flow
// with PKCE, state and nonce. The issuer's metadata is discovered on first use and cached; a failed
// discovery is not cached, so a provider that was down at start works once it is back.
import * as client from 'openid-client';
import type { Config } from '../config.ts';
import type { OidcClaims } from '../domain/accounts/users.ts';

export const CALLBACK_PATH = '/app/auth/oidc/callback';

/** What the browser carries between begin and finish (in a signed, short-lived cookie). */
export interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
}

export interface Oidc {
  begin(): Promise<{ url: string; pending: PendingLogin }>;
  /** Validates the provider's answer (state, nonce, PKCE, ID token signature) and returns who signed in. */
  finish(callbackUrl: URL, pending: PendingLogin): Promise<OidcClaims>;
}

/** undefined when OIDC_ISSUER / OIDC_CLIENT_ID are not set: the dashboard then offers email + password. */
export function createOidc(config: Config): Oidc | undefined {
  if (!config.OIDC_ISSUER || !config.OIDC_CLIENT_ID) return undefined;
  const issuer = new URL(config.OIDC_ISSUER);
  const redirectUri = config.publicUrl + CALLBACK_PATH;
  let discovered: Promise<client.Configuration> | undefined;

  const configuration = () => {
    discovered ??= client
      .discovery(issuer, config.OIDC_CLIENT_ID!, config.OIDC_CLIENT_SECRET, undefined, {
        // plain http only for a provider on this machine (development, tests); anything remote needs https
        execute: isLoopback(issuer) ? [client.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((err) => {
        discovered = undefined;
        throw err;
      });
    return discovered;
  };

  return {
    async begin() {
      const pending = {
        state: client.randomState(),
        nonce: client.randomNonce(),
        verifier: client.randomPKCECodeVerifier(),
      };
      const url = client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, pending };
    },
    async finish(callbackUrl, pending) {
      const cfg = await configuration();
      const tokens = await client.authorizationCodeGrant(cfg, callbackUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      let { email, email_verified, name } = claims as { email?: string; email_verified?: boolean; name?: string };
      if (!email) {
        // many providers put profile claims only in userinfo, not in the ID token
        const info = await client.fetchUserInfo(cfg, tokens.access_token, claims.sub);
        ({ email, email_verified, name } = info as typeof info & { email_verified?: boolean });
      }
      return { sub: claims.sub, email, email_verified, name };
    },
  };
}

function isLoopback(url: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) || url.hostname.startsWith('127.');
}
