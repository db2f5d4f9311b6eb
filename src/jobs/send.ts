// Campaign send workers: the wiring of the send steps (domain/campaigns/sending.ts). Two lanes per
// process claim ledger batches (rows stay 'queued' with this worker's id) and hand them, provider by
// provider, to the process's one pooled transport (SEND_CONCURRENCY connections). A row becomes 'sending'
// only as its message goes to SMTP, and holds one of SEND_IN_FLIGHT slots until its outcome is
// written: so at any moment at most that many rows per process are 'sending', and a crash interrupts
// only those. Claims of a dead worker go back to the queue; its 'sending' rows become 'interrupted',
// never sent twice. A provider that answers 421 / 4.7.x backs off (for every instance, in the database):
// its rows go back to the queue until then, the other providers keep sending.
import { randomUUID } from 'node:crypto';
import {
  domainOf,
  parseProviderLimits,
  ProviderGates,
  ProviderLookup,
  type MxResolver,
} from '../domain/campaigns/providers.ts';
import { RateGate } from '../domain/campaigns/sendRate.ts';
import * as sending from '../domain/campaigns/sending.ts';
import * as warmup from '../domain/campaigns/warmup.ts';
import type { MailTransport, SendResult } from '../mail/transport.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop, type PollLoop } from './pollLoop.ts';

const LANES = 2;
/** rows 'sending' at once per process, per SMTP connection, unless SEND_IN_FLIGHT says otherwise */
const IN_FLIGHT_PER_CONNECTION = 6;
// how stale a campaign's status may be when a lane decides whether to keep sending (cancel latency)
const STATUS_TTL_MS = 200;
// how stale this process's view of the providers' backoffs may be (another instance's backoff is seen then)
const BACKOFF_TTL_MS = 1000;

let wakeAll: () => void = () => {};
/** Cuts the idle wait short (the scheduler calls it after starting campaigns). */
export function wake(): void {
  wakeAll();
}

let mxResolver: MxResolver | undefined;
/** Tests: the MX lookup the next started workers use. */
export function useMxResolver(resolve: MxResolver | undefined): void {
  mxResolver = resolve;
}

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const sender = new Sender(ctx);
  await sender.start();
  return () => sender.stop();
}

interface Deferral {
  id: number;
  provider: string;
}

class Sender {
  private readonly me = randomUUID();
  private readonly transport: MailTransport;
  private readonly slots: Semaphore;
  private readonly rate: RateGate;
  private readonly gates: ProviderGates;
  private readonly providers: ProviderLookup;
  private readonly promoter: Promoter;
  private readonly recorder: Recorder;
  private readonly prepared = new Map<string, Promise<sending.PreparedCampaign>>();
  private readonly statuses = new Map<string, { at: number; status: Promise<string | undefined> }>();
  /** providers backing off, by until when (the database's view, refreshed every BACKOFF_TTL_MS, and ours) */
  private backoff = new Map<string, Date>();
  private backoffRead = 0;
  private stopped = false;
  private lanes: PollLoop[] = [];
  private timer?: NodeJS.Timeout;
  private turn = 0;

  constructor(private readonly ctx: WorkerContext) {
    const { config, db } = ctx;
    this.transport = ctx.transport;
    // a message holds a slot from its 'sending' mark until its outcome is written, so this is how many
    // rows a crash can interrupt. Each slot's cycle is two database round trips (the mark, the outcome)
    // plus the SMTP reply; with 2 slots per connection the connections idled waiting for the database
    // (20,000 to a local sink: 709 msg/s, against 1,030 with 6 and 1,150 when whole batches were marked
    // at once). The pool itself still opens at most SEND_CONCURRENCY connections.
    this.slots = new Semaphore(
      config.SEND_IN_FLIGHT > 0
        ? config.SEND_IN_FLIGHT
        : IN_FLIGHT_PER_CONNECTION * Math.max(1, config.SEND_CONCURRENCY),
    );
    this.rate = new RateGate(db, config.SEND_RATE_PER_SECOND);
    this.gates = new ProviderGates(parseProviderLimits(config.PROVIDER_LIMITS));
    this.providers = new ProviderLookup({ resolveMx: mxResolver });
    this.promoter = new Promoter((ids) => sending.promote(db, this.me, ids));
    this.recorder = new Recorder(ctx, this.me, this.slots, (d) => this.deferredUntil(d));
  }

  async start(): Promise<void> {
    const { db, config, handle, log } = this.ctx;
    // PGlite allows one process per data dir: whatever is still 'sending' now was cut off by a crash
    const n = await sending.keepAlive(db, this.me, {
      leaseMs: config.SEND_LEASE_MS,
      allButMe: handle.kind === 'pglite',
    });
    this.report(n);
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(config.SEND_LEASE_MS / 3)));
    this.timer.unref();
    for (let i = 0; i < LANES; i++) this.lanes.push(startLoop('send', config.WORKER_POLL_MS, log, () => this.round()));
    wakeAll = () => this.lanes.forEach((lane) => lane.wake());
  }

  /** Stops the lanes and waits for their writes; the transport is the process's and closes with it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    await this.recorder.idle();
    await sending.retireWorker(this.ctx.db, this.me, this.ctx.config.SEND_LEASE_MS).catch(() => {});
  }

  private report(n: { interrupted: number; released: number }): void {
    if (n.interrupted > 0)
      this.ctx.log.warn(
        `send: ${n.interrupted} recipients were mid-send when a worker stopped; marked interrupted, not re-sent`,
      );
    if (n.released > 0)
      this.ctx.log.info(`send: ${n.released} recipients claimed by a stopped worker went back to the queue`);
  }

  private async beat(): Promise<void> {
    try {
      this.report(await sending.keepAlive(this.ctx.db, this.me, { leaseMs: this.ctx.config.SEND_LEASE_MS }));
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'send: heartbeat failed');
    }
  }

  /** One batch of one sending campaign (campaigns take turns); false when there was nothing to send. */
  private async round(): Promise<boolean> {
    const { db, config } = this.ctx;
    const campaigns = await sending.sendingCampaigns(db);
    for (const id of this.prepared.keys()) if (!campaigns.some((c) => c.id === id)) this.forget(id);
    await this.readBackoffs();
    const start = this.turn++;
    for (let i = 0; i < campaigns.length && !this.stopped; i++) {
      const c = campaigns[(start + i) % campaigns.length]!;
      const size = Math.max(1, config.SEND_BATCH_SIZE);
      // none when its domain's warm-up cap is used up today: the rows wait, queued, for the next day
      const batch = await warmup.claimWithin(db, config, c, size, (n) => sending.claim(db, c.id, this.me, n));
      if (batch.length === 0) {
        await this.recorder.idle(); // our own rows still 'sending' would hold the finish back
        if (await sending.finishIfDone(db, c.id)) this.forget(c.id);
        continue;
      }
      await this.sendBatch(c.id, batch);
      return true;
    }
    return false;
  }

  private async sendBatch(campaignId: string, batch: sending.Claimed[]): Promise<void> {
    const { config } = this.ctx;
    let campaign: sending.PreparedCampaign;
    try {
      campaign = await this.prepare(campaignId);
    } catch (err) {
      this.recorder.add(sending.failAll(batch, err));
      return;
    }
    const outcomes: sending.Outcome[] = [];
    const ready = sending.activeOnly(batch, outcomes);
    this.recorder.add(outcomes);
    if (this.transport.sendMany && config.SEND_RATE_PER_SECOND === 0) {
      // the outbox is a table, not a mail server: no providers to spare, one INSERT for the batch
      const promoted = await this.promoter.promote(ready.map((r) => r.id));
      const mine = ready.filter((r) => promoted.has(r.id));
      const done: sending.Outcome[] = [];
      const built = mine.flatMap((row) => sending.compose(campaign, row, done));
      const results = await this.transport
        .sendMany(built.map((b) => b.msg))
        .catch((err) => built.map(() => sending.transient(err)));
      built.forEach((b, i) => done.push(sending.outcomeOf(config, b.row, results[i]!)));
      this.recorder.add(done);
      return;
    }
    await this.pump(campaign, ready, await this.providersOf(ready));
  }

  /** Each row's provider, looking up (once per domain, cached) the domains not known yet. */
  private async providersOf(rows: sending.Claimed[]): Promise<string[]> {
    const domains = rows.map((r) => domainOf(r.email));
    const unknown = new Set(domains.filter((d) => this.providers.cached(d) === undefined));
    await Promise.all([...unknown].map((d) => this.providers.providerOf(d)));
    return domains.map((d) => this.providers.cached(d) ?? d);
  }

  /**
   * Hands the batch's messages to SMTP one by one, providers taking turns, each within its own
   * concurrency and rate; a provider backing off keeps its rows for later. Each message holds a slot,
   * is marked 'sending' (coalesced with the others being handed, one statement) and rendered just before
   * it goes. Stops handing out messages on cancel or shutdown. Nothing per message outlives its send: a
   * batch's worth of held promises or copies would survive into V8's old generation (docs/performance.md).
   */
  private async pump(campaign: sending.PreparedCampaign, rows: sending.Claimed[], providers: string[]): Promise<void> {
    const queues: ProviderQueue[] = [];
    const byProvider = new Map<string, ProviderQueue>();
    rows.forEach((row, i) => {
      const provider = providers[i]!;
      let q = byProvider.get(provider);
      if (!q) (byProvider.set(provider, (q = { provider, rows: [], next: 0 })), queues.push(q));
      q.rows.push(row);
    });
    let pending = 0;
    let drained: (() => void) | undefined;
    const settle = () => {
      if (--pending === 0) drained?.();
    };
    let turn = 0;
    const rest = (q: ProviderQueue) => q.rows.splice(q.next);
    while (queues.length > 0) {
      if (this.stopped || (await this.status(campaign.id)) !== 'sending') {
        const cancelled = !this.stopped;
        for (const q of queues.splice(0))
          this.recorder.add(rest(q).map((row) => (cancelled ? sending.cancelled(row) : sending.released(row))));
        break;
      }
      if (this.backoff.size > 0)
        for (let k = queues.length - 1; k >= 0; k--)
          if (this.backingOff(queues[k]!.provider)) {
            const q = queues.splice(k, 1)[0]!;
            this.recorder.defer(rest(q).map((row) => ({ id: row.id, provider: q.provider })));
          }
      // the next provider in turn that may take a message now; otherwise wait for one
      let picked = -1;
      let waitMs = 1000;
      for (let k = 0; k < queues.length; k++) {
        const i = (turn + k) % queues.length;
        const ready = this.gates.ready(queues[i]!.provider);
        if (ready === 0) {
          picked = i;
          break;
        }
        if (ready !== false) waitMs = Math.min(waitMs, ready);
      }
      if (picked < 0) {
        if (queues.length > 0) await this.gates.wait(waitMs);
        continue;
      }
      const q = queues[picked]!;
      const row = q.rows[q.next++]!;
      if (q.next >= q.rows.length) queues.splice(picked, 1);
      turn = picked + 1;
      await this.rate.take();
      await this.slots.acquire();
      if (this.backingOff(q.provider)) {
        this.slots.release();
        this.recorder.defer([{ id: row.id, provider: q.provider }]);
        continue;
      }
      this.gates.take(q.provider);
      pending++;
      void this.handOver(campaign, row, q.provider).finally(settle);
    }
    if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
  }

  /** One message: marked 'sending', rendered, sent; its outcome goes to the recorder, which frees the slot. */
  private async handOver(campaign: sending.PreparedCampaign, row: sending.Claimed, provider: string): Promise<void> {
    const { config } = this.ctx;
    let promoted: Set<number>;
    try {
      promoted = await this.promoter.promote(row.id);
    } catch {
      this.gates.done(provider);
      this.slots.release();
      return this.recorder.add([sending.released(row)]);
    }
    if (!promoted.has(row.id)) {
      // cancelled meanwhile (skipped by the cancel) or no longer ours: nothing to write
      this.gates.done(provider);
      return this.slots.release();
    }
    if (this.backingOff(provider)) {
      this.gates.done(provider);
      return this.recorder.defer([{ id: row.id, provider }], true);
    }
    const failed: sending.Outcome[] = [];
    const [built] = sending.compose(campaign, row, failed);
    let res: SendResult;
    if (!built) {
      this.gates.done(provider);
      return this.recorder.add(failed, true);
    }
    try {
      res = await this.transport.send(built.msg);
    } catch (err) {
      res = sending.transient(err);
    }
    this.gates.done(provider);
    let outcome = sending.outcomeOf(config, row, res);
    if (sending.isThrottled(res)) outcome = sending.throttledOutcome(outcome, this.throttled(provider));
    this.recorder.add([outcome], true);
  }

  /** The provider asked us to slow down: back off here at once, and for every instance in the database. */
  private throttled(provider: string): Date {
    const { config, db, log } = this.ctx;
    const current = this.backoff.get(provider);
    if (current && current.getTime() > Date.now()) return current;
    const until = new Date(Date.now() + Math.min(config.PROVIDER_BACKOFF_BASE_MS, config.PROVIDER_BACKOFF_MAX_MS));
    this.backoff.set(provider, until);
    this.recorder.pendingBackoff(
      sending
        .backOff(db, provider, config.PROVIDER_BACKOFF_BASE_MS, config.PROVIDER_BACKOFF_MAX_MS)
        .then((at) => {
          this.backoff.set(provider, at);
          log.warn(`send: ${provider} throttles; its recipients wait until ${at.toISOString()}`);
        })
        .catch((err) => log.error({ err }, `send: could not store the backoff of ${provider}`)),
    );
    return until;
  }

  private backingOff(provider: string): boolean {
    const until = this.backoff.get(provider);
    if (!until) return false;
    if (until.getTime() > Date.now()) return true;
    this.backoff.delete(provider);
    return false;
  }

  private deferredUntil(d: Deferral): Date {
    const until = this.backoff.get(d.provider);
    return until && until.getTime() > Date.now()
      ? until
      : new Date(Date.now() + this.ctx.config.PROVIDER_BACKOFF_BASE_MS);
  }

  private async readBackoffs(): Promise<void> {
    if (Date.now() - this.backoffRead < BACKOFF_TTL_MS) return;
    this.backoffRead = Date.now();
    try {
      const rows = await sending.backoffs(this.ctx.db);
      const next = new Map<string, Date>();
      for (const r of rows) next.set(r.provider, r.until);
      // ours may be ahead of the database (a backoff being written)
      for (const [p, until] of this.backoff) if (until.getTime() > (next.get(p)?.getTime() ?? 0)) next.set(p, until);
      this.backoff = next;
    } catch (err) {
      this.ctx.log.error({ err }, 'send: could not read the providers’ backoffs');
    }
  }

  /** The prepared campaign, once per campaign while it sends (only drafts change, so it cannot go stale). */
  private prepare(campaignId: string): Promise<sending.PreparedCampaign> {
    let p = this.prepared.get(campaignId);
    if (!p) {
      p = sending.prepareCampaign(this.ctx.db, this.ctx.config, campaignId);
      p.catch(() => this.prepared.delete(campaignId));
      this.prepared.set(campaignId, p);
    }
    return p;
  }

  /** The campaign's status, re-read at most every STATUS_TTL_MS (a cancel is seen within that time). */
  private status(campaignId: string): Promise<string | undefined> {
    const cached = this.statuses.get(campaignId);
    if (cached && Date.now() - cached.at < STATUS_TTL_MS) return cached.status;
    const status = sending.campaignStatus(this.ctx.db, campaignId);
    this.statuses.set(campaignId, { at: Date.now(), status });
    return status;
  }

  private forget(campaignId: string): void {
    this.prepared.delete(campaignId);
    this.statuses.delete(campaignId);
  }
}

interface ProviderQueue {
  provider: string;
  rows: sending.Claimed[];
  next: number;
}

/**
 * Marks rows 'sending' as their messages are handed over: ids asked for while a statement runs go in the
 * next one, so the statements per second stay near the database's round trips, not the messages'.
 */
class Promoter {
  private ids: number[] = [];
  private waiting?: { promise: Promise<Set<number>>; resolve: (s: Set<number>) => void; reject: (e: unknown) => void };
  private busy = false;

  constructor(private readonly run: (ids: number[]) => Promise<Set<number>>) {}

  promote(ids: number | number[]): Promise<Set<number>> {
    if (typeof ids === 'number') this.ids.push(ids);
    else for (const id of ids) this.ids.push(id);
    if (!this.waiting) {
      let resolve!: (s: Set<number>) => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<Set<number>>((res, rej) => ((resolve = res), (reject = rej)));
      this.waiting = { promise, resolve, reject };
    }
    // started on the next turn of the event loop: what the lanes hand over meanwhile joins it
    if (!this.busy) {
      this.busy = true;
      setImmediate(() => void this.flush());
    }
    return this.waiting.promise;
  }

  private async flush(): Promise<void> {
    while (this.ids.length > 0) {
      const ids = this.ids;
      const w = this.waiting!;
      this.ids = [];
      this.waiting = undefined;
      try {
        w.resolve(await this.run(ids));
      } catch (err) {
        w.reject(err);
      }
    }
    this.busy = false;
  }
}

/**
 * Writes outcomes (and puts deferred rows back in the queue) as they come, one statement at a time: what
 * arrives during a write goes in the next. An outcome that holds a slot frees it once written, so rows
 * stay 'sending' only while in flight. A failed write is retried; until it lands the rows stay 'sending'
 * and their slots taken, which holds new sends back rather than let them pile up.
 */
class Recorder {
  private outcomes: sending.Outcome[] = [];
  private deferrals: Deferral[] = [];
  private held = 0;
  private backoffs: Promise<void>[] = [];
  /** the write running now; each write starts the next when there is more */
  private current?: Promise<void>;
  private added = 0;
  private written = 0;

  constructor(
    private readonly ctx: WorkerContext,
    private readonly me: string,
    private readonly slots: Semaphore,
    private readonly until: (d: Deferral) => Date,
  ) {}

  /** `holdsSlot`: each of these outcomes frees one slot once written. */
  add(outcomes: sending.Outcome[], holdsSlot = false): void {
    if (outcomes.length === 0) return;
    for (const o of outcomes) this.outcomes.push(o);
    if (holdsSlot) this.held += outcomes.length;
    this.added++;
    this.kick();
  }

  defer(rows: Deferral[], holdsSlot = false): void {
    if (rows.length === 0) return;
    for (const d of rows) this.deferrals.push(d);
    if (holdsSlot) this.held += rows.length;
    this.added++;
    this.kick();
  }

  /** A backoff being stored: the deferrals wait for it, so they carry the database's until. */
  pendingBackoff(p: Promise<void>): void {
    this.backoffs.push(p);
  }

  /** Resolves once everything added before the call is written (not what comes in meanwhile). */
  async idle(): Promise<void> {
    const target = this.added;
    while (this.written < target && this.current) await this.current;
  }

  private kick(): void {
    if (this.current) return;
    const next = (): Promise<void> | undefined => {
      if (this.outcomes.length === 0 && this.deferrals.length === 0) return undefined;
      const outcomes = this.outcomes;
      const deferrals = this.deferrals;
      const held = this.held;
      const upTo = this.added;
      this.outcomes = [];
      this.deferrals = [];
      this.held = 0;
      return (async () => {
        if (deferrals.length > 0 && this.backoffs.length > 0) {
          const waiting = this.backoffs;
          this.backoffs = [];
          await Promise.all(waiting);
        }
        await this.write(outcomes, deferrals);
        for (let i = 0; i < held; i++) this.slots.release();
        this.written = upTo;
      })().finally(() => (this.current = next()));
    };
    this.current = next();
  }

  private async write(outcomes: sending.Outcome[], deferrals: Deferral[]): Promise<void> {
    const { db, log } = this.ctx;
    for (let attempt = 1; ; attempt++) {
      try {
        if (deferrals.length > 0)
          await sending.defer(
            db,
            this.me,
            deferrals.map((d) => ({ ...d, until: this.until(d) })),
          );
        deferrals = [];
        if (outcomes.length > 0) await sending.record(db, this.me, outcomes);
        return;
      } catch (err) {
        if (attempt >= 5) {
          log.error(
            { err },
            'send: could not record outcomes; their rows stay sending until this worker restarts, then become interrupted',
          );
          return;
        }
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  }
}

/** At most `n` holders at once. */
class Semaphore {
  private waiting: (() => void)[] = [];
  constructor(private free: number) {}
  acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}
