// Recipient domain → mail provider: the big providers by domain, the rest by MX host (looked up once per
// domain and cached, a failed or slow lookup making the domain its own provider), and PROVIDER_LIMITS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  parseProviderLimits,
  ProviderGates,
  ProviderLookup,
  type MxResolver,
} from '../../../src/domain/delivery/providers.ts';

const MX: Record<string, { exchange: string; priority: number }[]> = {
  'acme.example': [
    { exchange: 'alt1.aspmx.l.google.com', priority: 20 },
    { exchange: 'aspmx.l.google.com', priority: 10 },
  ],
  'legacy.example': [{ exchange: 'mx.googlemail.com.', priority: 5 }],
  'contoso.example': [{ exchange: 'contoso-example.mail.protection.outlook.com', priority: 0 }],
  'shop.example': [
    { exchange: 'mx2.mailhost.co.uk', priority: 20 },
    { exchange: 'mx1.mailhost.co.uk', priority: 10 },
  ],
  'tiny.example': [{ exchange: 'mail.tiny.example', priority: 10 }],
};

function stub(): { resolve: MxResolver; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (domain) => {
      calls.push(domain);
      const mx = MX[domain];
      if (!mx) throw Object.assign(new Error('queryMx ENOTFOUND'), { code: 'ENOTFOUND' });
      return mx;
    },
  };
}

test('other domains are grouped by their MX host, looked up once per domain', async () => {
  const { resolve, calls } = stub();
  const lookup = new ProviderLookup({ resolveMx: resolve });
  // a Google Workspace domain (lowest preference MX first) and a googlemail.com MX are google
  assert.equal(await lookup.providerOf('acme.example'), 'google');
  assert.equal(await lookup.providerOf('legacy.example'), 'google');
  assert.equal(await lookup.providerOf('contoso.example'), 'microsoft');
  // a host of nobody known: its registrable domain, so the domains one host serves share a queue
  assert.equal(await lookup.providerOf('shop.example'), 'mailhost.co.uk');
  assert.equal(await lookup.providerOf('tiny.example'), 'tiny.example');
  // no MX (lookup error): the domain is its own provider
  assert.equal(await lookup.providerOf('nomx.example'), 'nomx.example');
  // a big provider's own domain needs no lookup
  assert.equal(await lookup.providerOf('gmail.com'), 'google');
  const before = calls.length;
  await Promise.all([
    lookup.providerOf('acme.example'),
    lookup.providerOf('ACME.example'),
    lookup.providerOf('nomx.example'),
  ]);
  assert.equal(calls.length, before, 'answers (and failures) are cached');
  assert.equal(lookup.cached('acme.example'), 'google');
  assert.equal(lookup.cached('unasked.example'), undefined);
});

test('concurrent asks share one lookup; a slow lookup times out to the domain; the cache expires', async () => {
  let calls = 0;
  const slow: MxResolver = async () => {
    calls++;
    await new Promise((r) => setTimeout(r, 200));
    return [{ exchange: 'aspmx.l.google.com', priority: 1 }];
  };
  const lookup = new ProviderLookup({ resolveMx: slow, timeoutMs: 20, ttlMs: 50 });
  const answers = await Promise.all([lookup.providerOf('slow.example'), lookup.providerOf('slow.example')]);
  assert.deepEqual(answers, ['slow.example', 'slow.example']);
  assert.equal(calls, 1);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(lookup.cached('slow.example'), undefined, 'expired after the TTL');
  const patient = new ProviderLookup({ resolveMx: slow, timeoutMs: 1000 });
  assert.equal(await patient.providerOf('slow.example'), 'google');
});

test('PROVIDER_LIMITS merges over the defaults; bad input is a clear error', () => {
  const limits = parseProviderLimits(
    '{"google": {"concurrency": 2}, "*": {"per_second": 5}, "Mailhost.co.uk": {"per_second": 1.5}}',
  );
  assert.deepEqual(limits.google, { concurrency: 2, per_second: 100 });
  assert.deepEqual(limits['*'], { concurrency: 0, per_second: 5 });
  assert.deepEqual(limits['mailhost.co.uk'], { concurrency: 0, per_second: 1.5 });
  assert.deepEqual(parseProviderLimits('').microsoft, { concurrency: 10, per_second: 50 });
  assert.throws(() => parseProviderLimits('nope'), /must be JSON/);
  assert.throws(() => parseProviderLimits('[1]'), /JSON object/);
  assert.throws(() => parseProviderLimits('{"google": 5}'), /PROVIDER_LIMITS.google must be an object/);
  assert.throws(() => parseProviderLimits('{"google": {"burst": 5}}'), /google.burst is not a limit/);
  assert.throws(() => parseProviderLimits('{"google": {"concurrency": -1}}'), /≥ 0/);
});

test('gates: a provider at its concurrency waits, others go; the rate spaces messages out', async () => {
  const gates = new ProviderGates(
    parseProviderLimits(
      '{"google": {"concurrency": 2, "per_second": 0}, "slow": {"concurrency": 0, "per_second": 10}}',
    ),
  );
  gates.take('google');
  gates.take('google');
  assert.equal(gates.ready('google'), false);
  assert.equal(gates.ready('other.example'), 0);
  const waited = gates.wait(5_000);
  gates.done('google');
  await waited; // woken by the done, not the timeout
  assert.equal(gates.ready('google'), 0);
  for (let i = 0; i < 10; i++) gates.take('slow'); // a second's burst
  const ms = gates.ready('slow');
  assert.ok(typeof ms === 'number' && ms > 0 && ms <= 100, `next token in ${ms} ms`);
});
