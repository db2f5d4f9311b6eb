// Email verification for imports: a Verifier says which addresses cannot receive mail.
// Chosen once by config.VERIFIER and applied when the account's verify_emails is on. Verifiers do
// network I/O, so the import worker calls them outside its transactions.
import type { Config } from '../../../config.ts';
import { dnsResolver } from '../../../mail/dns.ts';
import { httpVerifier } from './http.ts';
import { mxVerifier } from './mx.ts';
import type { Verifier } from './verifier.ts';

export const noneVerifier: Verifier = { kind: 'none', check: async () => new Map() };

export function fromConfig(config: Config): Verifier {
  switch (config.VERIFIER) {
    case 'mx':
      return mxVerifier({ resolveMx: (d) => dnsResolver(config).resolveMx(d) });
    case 'http':
      if (!config.VERIFIER_URL) throw new Error('VERIFIER=http needs VERIFIER_URL');
      return httpVerifier(config.VERIFIER_URL);
    default:
      return noneVerifier;
  }
}
