// One process's send worker: LANES lanes claim ledger batches (a row of send_claims each; the ledger rows
// stay 'queued') and hand them, provider by provider, to the process's one pooled transport
// (SEND_CONCURRENCY connections). A row becomes 'sending' only as its message goes to SMTP, and holds
// one of SEND_IN_FLIGHT slots until its outcome is handed to the ledger writer: so at any moment at
// most that many rows per process are 'sending', and a crash interrupts only those. A provider that
// answers 421 / 4.7.x backs off (for every instance, in the database): its rows go back to the queue
// until then, the other providers keep sending.
import { randomUUID } from 'node:crypto';
import {
  domainOf,
  parseProviderLimits,
  ProviderGates,
  ProviderLookup,
  type MxResolver,
} from '../../domain/campaigns/providers.ts';
import { RateGate } from '../../domain/campaigns/sendRate.ts';
import * as sending from '../../domain/campaigns/sending.ts';
import * as warmup from '../../domain/campaigns/warmup.ts';
import { newMessageId, type MailTransport, type SendResult } from '../../mail/transport.ts';
import type { WorkerContext } from '../context.ts';
import { startLoop, type PollLoop } from '../pollLoop.ts';
import { ProviderBackoffs } from './backoffs.ts';
import { LedgerWriter } from './ledgerWriter.ts';
import { Semaphore } from './semaphore.ts';

const LANES = 2;
/** rows 'sending' at once per process, per SMTP connection, unless SEND_IN_FLIGHT says otherwise */
const IN_FLIGHT_PER_CONNECTION = 6;
// how stale a campaign's status may be when a lane decides whether to keep sending (cancel latency)
const STATUS_TTL_MS = 200;

interface ProviderQueue {
  provider: string;
  rows: sending.Claimed[];
  next: number;
}

export class Sender {
  private readonly me = randomUUID();
  private readonly transport: MailTransport;
  private readonly slots: Semaphore;
  private readonly rate: RateGate;
  private readonly gates: ProviderGates;
  private readonly providers: ProviderLookup;
  private readonly backoffs: ProviderBackoffs;
  private readonly writer: LedgerWriter;
  private readonly prepared = new Map<string, Promise<sending.PreparedCampaign>>();
  private readonly statuses = new Map<string, { at: number; status: Promise<string | undefined> }>();
  /**
   * Per campaign, the highest ledger id these lanes have claimed: the next claim reads on from there.
   * From the first row every time, each claim walked the entries that sent rows leave in the queued index
   * until a vacuum: work that grows with the square of the audience.
   */
  private readonly cursors = new Map<string, number>();
  private stopped = false;
  private lanes: PollLoop[] = [];
  private timer?: NodeJS.Timeout;
  private turn = 0;

  constructor(
    private readonly ctx: WorkerContext,
    resolveMx: MxResolver | undefined,
  ) {
    const { config, db } = ctx;
    this.transport = ctx.transport;
    // a message holds a slot from before its 'sending' mark until its outcome is handed to the writer, so
    // this is how many rows a crash can interrupt; the pool itself opens at most SEND_CONCURRENCY
    // connections. Each slot's cycle is the mark's round trip plus the SMTP reply (its outcome rides
    // with the next marks); docs/performance.md has the figures.
    this.slots = new Semaphore(
      config.SEND_IN_FLIGHT > 0
        ? config.SEND_IN_FLIGHT
        : IN_FLIGHT_PER_CONNECTION * Math.max(1, config.SEND_CONCURRENCY),
    );
    this.rate = new RateGate(db, config.SEND_RATE_PER_SECOND);
    this.gates = new ProviderGates(parseProviderLimits(config.PROVIDER_LIMITS));
    this.providers = new ProviderLookup({ resolveMx });
    this.backoffs = new ProviderBackoffs(ctx, (p) => this.writer.pendingBackoff(p));
    this.writer = new LedgerWriter(ctx, this.me, this.slots, (d) => this.backoffs.deferredUntil(d));
  }

  async start(): Promise<() => void> {
    const { db, config, handle, log } = this.ctx;
    this.transport.warm?.();
    // PGlite allows one process per data dir: whatever is still 'sending' now was cut off by a crash
    const n = await sending.keepAlive(db, this.me, {
      leaseMs: config.SEND_LEASE_MS,
      allButMe: handle.kind === 'pglite',
    });
    this.report(n);
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(config.SEND_LEASE_MS / 3)));
    this.timer.unref();
    for (let i = 0; i < LANES; i++) this.lanes.push(startLoop('send', config.WORKER_POLL_MS, log, () => this.round()));
    return () => this.lanes.forEach((lane) => lane.wake());
  }

  /** Stops the lanes and waits for their writes; the transport is the process's and closes with it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.all(this.lanes.map((lane) => lane.stop()));
    await this.writer.idle();
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
    await this.backoffs.refresh();
    const start = this.turn++;
    for (let i = 0; i < campaigns.length && !this.stopped; i++) {
      const c = campaigns[(start + i) % campaigns.length]!;
      const size = Math.max(1, config.SEND_BATCH_SIZE);
      let claimId: number | null = null;
      // none when its domain's warm-up cap is used up today: the rows wait, queued, for the next day
      const batch = await warmup.claimWithin(db, config, c, size, async (n) => {
        const after = this.cursors.get(c.id) ?? 0;
        let claimed = await sending.claim(db, c.id, this.me, n, after);
        // past the end: once more from the first row, for rows that came back (deferred, released)
        if (claimed.rows.length === 0 && after > 0) claimed = await sending.claim(db, c.id, this.me, n, 0);
        claimId = claimed.id;
        const last = claimed.rows.at(-1);
        if (last) this.cursors.set(c.id, last.id);
        return claimed.rows;
      });
      if (batch.length === 0) {
        await this.writer.idle(); // our own rows still 'sending' would hold the finish back
        if (await sending.finishIfDone(db, c.id)) this.forget(c.id);
        continue;
      }
      try {
        await this.sendBatch(c.id, batch);
      } finally {
        // every row of the batch has its outcome with the writer, or was never marked: the claim goes
        this.writer.finished(claimId);
      }
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
      this.writer.add(sending.failAll(batch, err));
      return;
    }
    const outcomes: sending.Outcome[] = [];
    const ready = sending.activeOnly(batch, outcomes);
    this.writer.add(outcomes);
    if (this.transport.sendMany && config.SEND_RATE_PER_SECOND === 0) {
      // the outbox is a table, not a mail server: no providers to spare, one INSERT for the batch
      let marked: Map<number, number>;
      try {
        marked = await this.writer.mark(ready.map((r) => this.planMessage(r)));
      } catch {
        return this.writer.add(ready.map(sending.released));
      }
      const done: sending.Outcome[] = [];
      const mine = ready.filter((r) => marked.has(r.id));
      const built = mine.flatMap((row) => sending.compose(campaign, row, done));
      const results = await this.transport
        .sendMany(built.map((b) => b.msg))
        .catch((err) => built.map(() => sending.transient(err)));
      built.forEach((b, i) => done.push(sending.outcomeOf(config, b.row, results[i]!)));
      this.writer.add(done);
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
   * is marked 'sending' (with the others being handed, one statement) and rendered just before it goes.
   * Stops handing out messages on cancel (the cancel skipped what is still queued) or shutdown (the rest
   * stays queued); returns once every message handed out has its outcome with the writer. Nothing per
   * message outlives its send: a batch's worth of held promises or copies would survive into V8's old
   * generation (docs/performance.md).
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
    try {
      while (queues.length > 0) {
        if (this.stopped || (await this.status(campaign.id)) !== 'sending') break;
        if (this.backoffs.any)
          for (let k = queues.length - 1; k >= 0; k--)
            if (this.backoffs.backingOff(queues[k]!.provider)) {
              const q = queues.splice(k, 1)[0]!;
              this.writer.defer(rest(q).map((row) => ({ id: row.id, provider: q.provider })));
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
        if (this.backoffs.backingOff(q.provider)) {
          this.writer.defer([{ id: row.id, provider: q.provider }], true);
          continue;
        }
        this.gates.take(q.provider);
        pending++;
        void this.handOver(campaign, row, q.provider).finally(settle);
      }
    } finally {
      if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
    }
  }

  /** The Message-ID of the row's next message, recorded with its mark and used when it is built. */
  private planMessage(row: sending.Claimed): sending.Mark {
    row.message_id = newMessageId(this.ctx.config);
    return { id: row.id, message_id: row.message_id };
  }

  /** One message: marked 'sending', rendered, sent; its outcome goes to the writer with its slot. */
  private async handOver(campaign: sending.PreparedCampaign, row: sending.Claimed, provider: string): Promise<void> {
    const { config } = this.ctx;
    let attempt: number | undefined;
    try {
      attempt = (await this.writer.mark(this.planMessage(row))).get(row.id);
    } catch {
      // the write failed: the row may be marked or not, so it goes back (a no-op when it was not)
      this.gates.done(provider);
      return this.writer.add([sending.released(row)], true);
    }
    if (attempt === undefined) {
      // cancelled meanwhile (skipped by the cancel) or taken by another worker: nothing to write
      this.gates.done(provider);
      return this.slots.release();
    }
    row.attempts = attempt;
    if (this.backoffs.backingOff(provider)) {
      this.gates.done(provider);
      return this.writer.defer([{ id: row.id, provider }], true);
    }
    const failed: sending.Outcome[] = [];
    const [built] = sending.compose(campaign, row, failed);
    let res: SendResult;
    if (!built) {
      this.gates.done(provider);
      return this.writer.add(failed, true);
    }
    try {
      res = await this.transport.send(built.msg);
    } catch (err) {
      res = sending.transient(err);
    }
    this.gates.done(provider);
    let outcome = sending.outcomeOf(config, row, res);
    if (sending.isThrottled(res)) outcome = sending.throttledOutcome(outcome, this.backoffs.throttled(provider));
    this.writer.add([outcome], true);
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
    this.cursors.delete(campaignId);
  }
}
