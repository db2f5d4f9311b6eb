// Prometheus metrics at GET /metrics: what this instance's HTTP faces did (kept in memory, per app) and
// what the database holds right now (read at scrape time, so every instance that shares the database
// reports the same numbers for those). Behind METRICS_TOKEN when it is set; open when it is not.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import * as q from '../domain/operations/metricsQueries.ts';
import { webhookAttemptCounts } from '../domain/operations/tallies.ts';

/** a scrape query that takes longer than this is skipped (its gauges stay empty) rather than wait */
const QUERY_TIMEOUT_MS = 2000;
/**
 * The ledger of a large campaign being sent takes longer to count than a scrape should wait (about 1.5 s
 * at a million recipients on a small machine): past this, a scrape answers with the previous count while
 * the query runs on, one at a time per instance.
 */
const LEDGER_WAIT_MS = 250;

function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('metrics query timed out')), ms);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

function sameToken(given: string, expected: string): boolean {
  // hashing first makes the comparison constant-time whatever the lengths
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

function authorised(req: FastifyRequest, token: string | undefined): boolean {
  if (!token) return true;
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return !!m && sameToken(m[1]!.trim(), token);
}

/** The rate-limit faces by route prefix: a 429 under one of these came from the per-key budget. */
function limitedFace(url: string | undefined): string | undefined {
  if (!url) return undefined;
  if (url.startsWith('/api/v1/external')) return 'rest';
  if (url === '/mcp' || url.startsWith('/mcp/')) return 'mcp';
  return undefined;
}

/**
 * Called on the root instance (not registered as an encapsulated plugin): its hooks must see every face's
 * requests, not only its own route's.
 */
export async function metricsRoutes(app: FastifyInstance): Promise<void> {
  // one registry per app: tests run several servers in one process, and prom-client's global registry
  // would refuse the second one's metrics by name
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'mailgrove_' });

  const duration = new Histogram({
    name: 'mailgrove_http_request_duration_seconds',
    help: 'HTTP request duration by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const inFlight = new Gauge({
    name: 'mailgrove_http_requests_in_flight',
    help: 'HTTP requests being handled now',
    registers: [registry],
  });
  const rejected = new Counter({
    name: 'mailgrove_rate_limit_rejections_total',
    help: 'Requests refused with 429 by the per-key rate limit, by face (rest, mcp)',
    labelNames: ['face'] as const,
    registers: [registry],
  });
  rejected.inc({ face: 'rest' }, 0);
  rejected.inc({ face: 'mcp' }, 0);

  app.addHook('onRequest', async (req) => {
    inFlight.inc();
    (req as { countedInFlight?: boolean }).countedInFlight = true;
  });
  app.addHook('onResponse', async (req, reply) => {
    if ((req as { countedInFlight?: boolean }).countedInFlight) inFlight.dec();
    // the pattern, never the raw URL (tokens live in some paths); unmatched requests share one label
    const route = req.routeOptions.url ?? 'unmatched';
    duration.observe({ method: req.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    if (reply.statusCode === 429) {
      const face = limitedFace(req.routeOptions.url);
      if (face) rejected.inc({ face });
    }
  });

  const db = app.db;
  const failedQueries = new Counter({
    name: 'mailgrove_metrics_query_failures_total',
    help: 'Scrape-time database queries that failed or timed out, by metric group',
    labelNames: ['group'] as const,
    registers: [registry],
  });
  /** A gauge filled by one query at scrape time; a failed query leaves it empty for that scrape. */
  function dbGauge<L extends string>(
    group: string,
    def: { name: string; help: string; labelNames?: readonly L[] },
    fill: (g: Gauge<L>) => Promise<void>,
  ): void {
    new Gauge<L>({
      ...def,
      registers: [registry],
      async collect() {
        this.reset();
        try {
          await within(fill(this), QUERY_TIMEOUT_MS);
        } catch (err) {
          this.reset();
          failedQueries.inc({ group });
          app.log.warn({ err, group }, 'metrics query failed');
        }
      },
    });
  }

  // the fresh result if it comes within waitMs, else the last one while the query runs on; never two at once
  function latestWithin<T>(load: () => Promise<T>, waitMs: number): () => Promise<T> {
    let last: T | undefined;
    let running: Promise<T> | undefined;
    return async () => {
      if (!running) {
        running = load().finally(() => (running = undefined));
        running.then((v) => (last = v)).catch(() => {});
      }
      const current = running;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), waitMs)));
      try {
        const fresh = await Promise.race([current, late]);
        if (fresh !== 'late') return fresh;
      } finally {
        clearTimeout(timer);
      }
      if (last !== undefined) return last;
      return current; // the first count of this instance: wait for it (bounded by QUERY_TIMEOUT_MS)
    };
  }

  // several gauges read one query's result: run it once per scrape, shared by whichever asks first
  function perScrape<T>(load: () => Promise<T>): () => Promise<T> {
    let pending: Promise<T> | undefined;
    return () => {
      if (!pending) {
        pending = load();
        const clear = () => setImmediate(() => (pending = undefined));
        pending.then(clear, clear);
      }
      return pending;
    };
  }
  const ledger = latestWithin(() => q.sendingLedger(db), LEDGER_WAIT_MS);
  const webhooks = perScrape(() => q.webhookBacklog(db));
  const automations = perScrape(() => q.automationBacklog(db));
  const imports = perScrape(() => q.importTotals(db));
  const queues = perScrape(() => q.queueDepths(db, app.queue.schema));
  const backoffs = perScrape(() => q.providerBackoffs(db));

  dbGauge(
    'ledger',
    {
      name: 'mailgrove_campaign_recipients',
      help: 'Ledger rows of the campaigns sending now or finished in the last 5 minutes, by campaign and state',
      labelNames: ['campaign_id', 'state'] as const,
    },
    async (g) => {
      for (const s of (await ledger()).states) g.set({ campaign_id: s.campaignId, state: s.state }, s.count);
    },
  );
  dbGauge(
    'ledger',
    {
      name: 'mailgrove_campaign_sent_last_minute',
      help: 'Recipients whose message was accepted in the last minute (send rate), over the campaigns sending or just finished',
    },
    async (g) => g.set((await ledger()).sentLastMinute),
  );
  dbGauge(
    'ledger',
    {
      name: 'mailgrove_campaign_failures',
      help: 'Failed ledger rows of the campaigns sending or just finished, by failure reason',
      labelNames: ['reason'] as const,
    },
    async (g) => {
      for (const reason of ['bounced', 'blocked', 'rejected', 'expired', 'error']) g.set({ reason }, 0);
      for (const [reason, n] of Object.entries((await ledger()).failures)) g.set({ reason }, n);
    },
  );
  dbGauge(
    'ledger',
    {
      name: 'mailgrove_campaign_smtp_replies',
      help: 'Last SMTP reply of each ledger row of the campaigns sending or just finished, by class (accepted = 2xx)',
      labelNames: ['class'] as const,
    },
    async (g) => {
      for (const [klass, n] of Object.entries((await ledger()).replies)) g.set({ class: klass }, n);
    },
  );
  dbGauge(
    'ledger',
    {
      name: 'mailgrove_campaign_deferred_recipients',
      help: 'Ledger rows of the campaigns sending now waiting again because their provider deferred them, by provider',
      labelNames: ['provider'] as const,
    },
    async (g) => {
      for (const [provider, n] of Object.entries((await ledger()).deferredBy)) g.set({ provider }, n);
    },
  );
  dbGauge(
    'providers',
    {
      name: 'mailgrove_provider_backoff_seconds',
      help: 'Seconds until a provider that deferred (421 / 4.7.x) is tried again, by provider; 0 once it may be',
      labelNames: ['provider'] as const,
    },
    async (g) => {
      for (const b of await backoffs()) g.set({ provider: b.provider }, b.secondsLeft);
    },
  );
  dbGauge(
    'queues',
    {
      name: 'mailgrove_queue_waiting_jobs',
      help: 'Background jobs created or waiting for a retry, by queue',
      labelNames: ['queue'] as const,
    },
    async (g) => {
      for (const d of await queues()) g.set({ queue: d.queue }, d.waiting);
    },
  );
  dbGauge(
    'queues',
    {
      name: 'mailgrove_queue_oldest_waiting_seconds',
      help: 'Age of the oldest waiting background job, by queue',
      labelNames: ['queue'] as const,
    },
    async (g) => {
      for (const d of await queues()) g.set({ queue: d.queue }, d.oldestSeconds);
    },
  );
  dbGauge(
    'imports',
    {
      name: 'mailgrove_import_rows_processed',
      help: 'Rows the import workers have worked through, summed over the imports kept',
    },
    async (g) => g.set((await imports()).rowsProcessed),
  );
  dbGauge(
    'imports',
    {
      name: 'mailgrove_import_rows_failed',
      help: 'Rows imports refused (bad address, bad field), summed over the imports kept',
    },
    async (g) => g.set((await imports()).rowsFailed),
  );
  dbGauge(
    'imports',
    { name: 'mailgrove_imports', help: 'Import jobs by status', labelNames: ['status'] as const },
    async (g) => {
      for (const status of ['processing', 'completed', 'failed']) g.set({ status }, 0);
      for (const [status, n] of Object.entries((await imports()).jobs)) g.set({ status }, n);
    },
  );
  dbGauge(
    'webhooks',
    {
      name: 'mailgrove_webhook_deliveries_pending',
      help: 'Webhook deliveries not yet delivered or given up, by kind (all, retrying, due)',
      labelNames: ['kind'] as const,
    },
    async (g) => {
      const w = await webhooks();
      g.set({ kind: 'all' }, w.pending);
      g.set({ kind: 'retrying' }, w.retrying);
      g.set({ kind: 'due' }, w.due);
    },
  );
  dbGauge(
    'webhooks',
    {
      name: 'mailgrove_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery',
    },
    async (g) => g.set((await webhooks()).oldestPendingSeconds),
  );
  dbGauge(
    'automations',
    {
      name: 'mailgrove_automation_runs_active',
      help: 'Automation runs in progress, by kind (all, due = next step already due)',
      labelNames: ['kind'] as const,
    },
    async (g) => {
      const a = await automations();
      g.set({ kind: 'all' }, a.active);
      g.set({ kind: 'due' }, a.due);
    },
  );

  dbGauge(
    'automations',
    {
      name: 'mailgrove_automation_runs',
      help: 'Automation runs by status: active now, and completed, canceled or failed over the automations kept',
      labelNames: ['status'] as const,
    },
    async (g) => {
      const a = await automations();
      g.set({ status: 'active' }, a.active);
      for (const [status, n] of Object.entries(a.finished)) g.set({ status }, n);
    },
  );
  new Counter({
    name: 'mailgrove_webhook_attempts_total',
    help: 'Webhook delivery attempts this instance made, by result (delivered, retrying = failed with a retry ahead, failed = given up)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [result, n] of Object.entries(webhookAttemptCounts())) this.inc({ result }, n);
    },
  });

  const pool = app.dbHandle.pool;
  if (pool) {
    new Gauge({
      name: 'mailgrove_db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, max) and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
        this.set({ state: 'max' }, pool.max);
      },
    });
  }

  app.get('/metrics', { config: { textRule: 'replace' } }, async (req: FastifyRequest, reply: FastifyReply) => {
    if (!authorised(req, app.config.METRICS_TOKEN)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer').send({ success: false, error: 'Unauthorized' });
    }
    const body = await registry.metrics();
    return reply.header('Content-Type', registry.contentType).header('Cache-Control', 'no-store').send(body);
  });
}
