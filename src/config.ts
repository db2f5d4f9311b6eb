// Every environment variable Mailgrove reads, typed and defaulted in one place.
// Nothing else in the codebase reads process.env; tests build a Config with loadConfig(overrides).
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const bool = z
  .string()
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v.toLowerCase()))
  .or(z.boolean());
const int = (d: number) => z.coerce.number().int().nonnegative().default(d);

export const Env = z.object({
  PORT: int(3000),
  HOST: z.string().default('127.0.0.1'),
  PUBLIC_URL: z.string().optional(),
  DATABASE_URL: z.string().optional(),
  // PostgreSQL connections per process: requests, and the background workers' own (so API traffic never
  // holds a send's ledger writes back, nor an import the API's reads)
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  DATABASE_WORKER_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(4),
  MAILGROVE_DATA_DIR: z.string().default('./data'),
  MAILGROVE_ADMIN_TOKEN: z.string().optional(),
  METRICS_TOKEN: z.string().optional(),
  MAILGROVE_SECRET: z.string().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Mailgrove <no-reply@localhost>'),
  REDIS_URL: z.string().optional(),
  RATE_LIMIT_STORE: z.enum(['auto', 'memory', 'postgres', 'redis']).default('auto'),
  DEFAULT_SUBSCRIBER_LIMIT: int(100_000),
  MCP_RATE_LIMIT: int(120),
  REST_RATE_LIMIT: int(600),
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  LOG_LEVEL: z.string().default('info'),
  // true when a reverse proxy sets X-Forwarded-For; otherwise clients could choose their own IP
  TRUST_PROXY: bool.default(false),
  IMPORT_MAX_BYTES: int(100 * 1024 * 1024),
  SEND_RATE_PER_SECOND: int(0), // 0 = unlimited
  SEND_CONCURRENCY: int(10),
  // recipients 'sending' at once per process (handed to SMTP, outcome not yet written): the most a crash
  // leaves interrupted. 0 = 6 × SEND_CONCURRENCY (measured: 2 × cost 40 % of the send rate, docs/performance.md)
  SEND_IN_FLIGHT: int(0),
  SEND_BATCH_SIZE: int(500),
  // SMTP 4xx → retried with backoff SEND_RETRY_BASE_MS × 2^(attempt-1), then failed after SEND_MAX_ATTEMPTS
  SEND_MAX_ATTEMPTS: int(5),
  SEND_RETRY_BASE_MS: int(60_000),
  // soft bounces in a row (since the last delivered email) that count as a hard bounce; 0: never
  SOFT_BOUNCE_LIMIT: int(3),
  // a send worker silent for this long is presumed dead: its in-flight rows become 'interrupted'
  SEND_LEASE_MS: int(30_000),
  // per mail provider (domain → provider: domain/delivery/providers.ts) limits per instance, as JSON
  // {"google": {"concurrency": 5, "per_second": 20}, "*": {...}} merged over the defaults
  PROVIDER_LIMITS: z
    .string()
    .default('')
    .refine((v) => {
      if (!v.trim()) return true;
      try {
        const o = JSON.parse(v);
        return !!o && typeof o === 'object' && !Array.isArray(o);
      } catch {
        return false;
      }
    }, 'must be a JSON object: {"<provider>": {"concurrency": n, "per_second": n}, "*": {...}}'),
  // a provider that answers 421 / 4.7.x is not sent to for BASE × 2^(times in a row - 1), at most MAX
  PROVIDER_BACKOFF_BASE_MS: int(60_000),
  PROVIDER_BACKOFF_MAX_MS: int(3_600_000),
  // how often the scheduler looks for due scheduled campaigns
  SCHEDULER_INTERVAL_MS: int(2000),
  DKIM_DOMAIN: z.string().optional(),
  DKIM_SELECTOR: z.string().optional(),
  DKIM_PRIVATE_KEY: z.string().optional(),
  UNSUBSCRIBE_MAILTO: z.string().optional(),
  // days a double opt-in confirmation link stays good; a pending sign-up expires with it
  SIGNUP_CONFIRM_DAYS: z.coerce.number().int().min(1).max(90).default(7),
  FORM_MIN_FILL_SECONDS: z.coerce.number().min(0).max(60).default(0),
  // late bounces, complaints and mailto unsubscribes (docs/deliverability.md): the envelope sender's domain
  // (VERP return path), the inbound SMTP listener (off without a port), its STARTTLS key pair (PEM files),
  // and a bounce mailbox polled over IMAP (imaps://user:password@host/INBOX)
  BOUNCE_DOMAIN: z
    .string()
    .regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i, 'must be a domain name')
    .optional(),
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  INBOUND_SMTP_HOST: z.string().default('127.0.0.1'),
  INBOUND_TLS_CERT: z.string().optional(),
  INBOUND_TLS_KEY: z.string().optional(),
  BOUNCE_IMAP_URL: z.string().optional(),
  // how often the bounce mailboxes (the instance's and the accounts' own) are polled
  BOUNCE_IMAP_POLL_MS: z.coerce.number().int().min(100).default(60_000),
  // whether a campaign that fails a blocking check before sending is refused (block) or only told (warn);
  // unset: block when mail leaves through SMTP_URL, warn in outbox mode (sendChecksMode)
  SEND_CHECKS: z.enum(['block', 'warn']).optional(),
  ALLOW_PRIVATE_WEBHOOK_URLS: bool.default(false),
  // accounts' SMTP relays and bounce mailboxes may be at private or loopback addresses (off: the rule webhooks follow)
  ALLOW_PRIVATE_SMTP_RELAYS: bool.default(false),
  // comma-separated seconds; webhook retry schedule, shortened by tests
  WEBHOOK_RETRY_SCHEDULE: z.string().default('5,300,1800,7200,18000,36000,36000'),
  WEBHOOK_TIMEOUT_MS: int(10_000),
  // a webhook whose deliveries keep failing this long (5 days) is disabled, with a webhook.disabled event
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce
    .number()
    .positive()
    .default(5 * 24 * 3600),
  // deliveries posted at once per process
  WEBHOOK_CONCURRENCY: int(10),
  // automation delays are divided by this factor (tests run a two-day delay in seconds)
  AUTOMATION_TIME_SCALE: z.coerce.number().positive().default(1),
  // test-only: a sending domain's warm-up day lasts 24 h / this factor, counted from the plan's creation
  WARMUP_TIME_SCALE: z.coerce.number().positive().default(1),
  // how often the job workers and scheduler poll, in milliseconds
  WORKER_POLL_MS: int(1000),
  WORKERS: bool.default(true),
  // every worker instance writes its heartbeat this often; one silent for INSTANCE_TIMEOUT_MS is dead, and
  // the others take over its imports, automation runs and webhook deliveries (src/jobs/supervisor.ts)
  INSTANCE_HEARTBEAT_MS: int(3000),
  INSTANCE_TIMEOUT_MS: int(20_000),
  // what this instance does: all (HTTP + workers), api (HTTP only), worker (workers; HTTP health only)
  MAILGROVE_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  // SIGTERM/SIGINT: in-flight requests and the current send batch get this long to finish
  SHUTDOWN_TIMEOUT_MS: int(10_000),
  OIDC_ISSUER: z.string().optional(),
  OIDC_CLIENT_ID: z.string().optional(),
  OIDC_CLIENT_SECRET: z.string().optional(),
  // dashboard sign-in sessions last this long since last use (sliding)
  SESSION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .default(24 * 14),
  // CLI: the running server to talk to through the admin API (default: direct database access)
  MAILGROVE_URL: z.string().optional(),
  VERIFIER: z.enum(['none', 'mx', 'http']).default('none'),
  // the DNS servers every lookup goes to (src/mail/dns.ts), comma-separated ip:port; unset = the system's
  DNS_SERVERS: z
    .string()
    .default('')
    .refine(
      (v) =>
        v
          .split(',')
          .every((s) => !s.trim() || /^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\])(:\d{1,5})?$/.test(s.trim())),
      'must be comma-separated ip:port entries, such as 127.0.0.1:53 or [::1]:5353',
    ),
  // the name this instance gives in SMTP EHLO; unset = PUBLIC_URL's host
  SMTP_EHLO_NAME: z.string().optional(),
  // a process that sends (SMTP_URL, role all or worker) starts with a non-https PUBLIC_URL only when true
  ALLOW_INSECURE_PUBLIC_URL: bool.default(false),
  VERIFIER_URL: z.string().optional(),
});
export type Env = z.input<typeof Env>;

export type Config = z.output<typeof Env> & {
  publicUrl: string;
  version: string;
  /** resolved at start: MAILGROVE_SECRET or the generated one */ secret: string;
};

export function loadConfig(
  overrides: Partial<Record<keyof Env, unknown>> = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(Env.shape)) {
    const value = key in overrides ? overrides[key as keyof Env] : env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = Env.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  const publicUrl = (c.PUBLIC_URL ?? `http://${c.HOST}:${c.PORT}`).replace(/\/+$/, '');
  return { ...c, publicUrl, version: packageVersion(), secret: c.MAILGROVE_SECRET ?? '' };
}

/** SEND_CHECKS, or its default: real mail (SMTP_URL) is held to the checks, the outbox is only told. */
export function sendChecksMode(c: Pick<Config, 'SEND_CHECKS' | 'SMTP_URL'>): 'block' | 'warn' {
  return c.SEND_CHECKS ?? (c.SMTP_URL ? 'block' : 'warn');
}

/**
 * Why this configuration must not start, or undefined. A process that sends (role all or worker, with
 * SMTP_URL) puts PUBLIC_URL into every unsubscribe, tracking and confirmation link and every Message-ID:
 * unset or plain http, real recipients would get links to this machine's address, in the clear.
 */
export function startProblem(
  config: Pick<Config, 'SMTP_URL' | 'PUBLIC_URL' | 'MAILGROVE_ROLE' | 'ALLOW_INSECURE_PUBLIC_URL'>,
): string | undefined {
  if (!config.SMTP_URL || config.MAILGROVE_ROLE === 'api' || config.ALLOW_INSECURE_PUBLIC_URL) return undefined;
  let https = false;
  try {
    https = !!config.PUBLIC_URL && new URL(config.PUBLIC_URL).protocol === 'https:';
  } catch {
    https = false;
  }
  if (https) return undefined;
  return (
    `SMTP_URL is set, so this process sends real mail, but PUBLIC_URL ` +
    (config.PUBLIC_URL ? `(${config.PUBLIC_URL}) is not an https:// URL` : 'is not set') +
    `: every unsubscribe, tracking and confirmation link would point there. Set PUBLIC_URL to the https:// ` +
    `address recipients reach this instance at, or ALLOW_INSECURE_PUBLIC_URL=true for a local setup.`
  );
}

let cachedVersion: string | undefined;
export function packageVersion(): string {
  cachedVersion ??= JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version as string;
  return cachedVersion;
}
