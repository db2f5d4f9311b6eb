// The http verifier: POSTs a batch of addresses to an external verification service (VERIFIER_URL).
// Request  {"emails": ["a@example.com", …]}
// Response {"results": [{"email": "a@example.com", "deliverable": false, "reason": "mailbox does not exist"}, …]}
// Addresses the service does not mention pass. A failed call throws, so the import batch is retried.
import type { Verifier } from './verifier.ts';

export function httpVerifier(url: string, opts: { timeoutMs?: number } = {}): Verifier {
  return {
    kind: 'http',
    async check(emails) {
      const out = new Map<string, string>();
      if (emails.length === 0) return out;
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ emails }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
      if (!res.ok) throw new Error(`Verification service answered ${res.status}`);
      const body = (await res.json()) as { results?: { email?: unknown; deliverable?: unknown; reason?: unknown }[] };
      if (!Array.isArray(body.results)) throw new Error('Verification service answered without a results array');
      for (const r of body.results) {
        if (typeof r.email !== 'string' || r.deliverable !== false) continue;
        out.set(
          r.email.trim().toLowerCase(),
          `Undeliverable: ${typeof r.reason === 'string' && r.reason ? r.reason : 'rejected by the verification service'}`,
        );
      }
      return out;
    },
  };
}
