// One process's send worker: LANES lanes claim ledger batches (a row of send_claims each; the ledger rows
// stay 'queued') and hand them, provider by provider, to the process's one pooled transport
// (SEND_CONCURRENCY connections). A row becomes 'sending' only as its message goes to SMTP, and holds
// one of SEND_IN_FLIGHT slots until its outcome is handed to the ledger writer: so at any moment at
// most that many rows per process are 'sending', and a crash interrupts only those. A provider that
// answers 421 / 4.7.x backs off (for every instance, in the database): its rows go back to the queue
// until then, the other providers keep sending.
import { randomUUID } from 'node:crypto';
import { newMessageId, type MailTransport, type SendResult } from '../../mail/transport.ts';
import { campaignStatus } from '../campaigns/queries.ts';
import type { SenderDeps } from './deps.ts';
import * as ledger from './ledger.ts';
import { claim, retireWorker, sendingCampaigns, type Claimed, type Mark, type Outcome } from './ledgerQueries.ts';
import { LedgerWriter } from './ledgerWriter.ts';
import type { PreparedCampaign } from './message.ts';
import { isThrottled, outcomeOf, throttledOutcome, transient } from './outcome.ts';
import type { Pacing } from './pacing.ts';
import { Semaphore } from './semaphore.ts';
import * as warmup from './warmup.ts';

/** how many lanes a process runs (the registrar starts one poll loop per lane, each calling `round`) */
export const LANES = 2;
/** rows 'sending' at once per process, per SMTP connection, unless SEND_IN_FLIGHT says otherwise */
const IN_FLIGHT_PER_CONNECTION = 6;
// how stale a campaign's status may be when a lane decides whether to keep sending (cancel latency)
const STATUS_TTL_MS = 200;

interface ProviderQueue {
  provider: string;
  rows: Claimed[];
  next: number;
}

export class Sender {
  private readonly me = randomUUID();
  private readonly transport: MailTransport;
  private readonly slots: Semaphore;
  private readonly writer: LedgerWriter;
  private readonly prepared = new Map<string, Promise<PreparedCampaign>>();
  private readonly statuses = new Map<string, { at: number; status: Promise<string | undefined> }>();
  /**
   * Per campaign, the highest ledger id these lanes have claimed: the next claim reads on from there.
   * From the first row every time, each claim walked the entries that sent rows leave in the queued index
   * until a vacuum: work that grows with the square of the audience.
   */
  private readonly cursors = new Map<string, number>();
  private stopped = false;
  private turn = 0;

  constructor(
    private readonly ctx: SenderDeps,
    private readonly pacing: Pacing,
  ) {
    const { config } = ctx;
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
    this.writer = new LedgerWriter(ctx, this.me, this.slots, pacing.backoffs);
  }

  /** Before the first round: warms the transport up and recovers what a crashed worker left. */
  async start(): Promise<void> {
    const { db, config, handle } = this.ctx;
    this.transport.warm?.();
    // PGlite allows one process per data dir: whatever is still 'sending' now was cut off by a crash
    const n = await ledger.keepAlive(db, this.me, {
      leaseMs: config.SEND_LEASE_MS,
      allButMe: handle.kind === 'pglite',
    });
    this.report(n);
  }

  /** Rounds stop handing out messages: what is still queued stays so for the next worker. */
  halt(): void {
    this.stopped = true;
  }

  /** After the lanes' loops stopped: waits for the writes and retires this worker. */
  async drain(): Promise<void> {
    await this.writer.idle();
    await retireWorker(this.ctx.db, this.me, this.ctx.config.SEND_LEASE_MS).catch(() => {});
  }

  private report(n: { interrupted: number; released: number }): void {
    if (n.interrupted > 0)
      this.ctx.log.warn(
        `send: ${n.interrupted} recipients were mid-send when a worker stopped; marked interrupted, not re-sent`,
      );
    if (n.released > 0)
      this.ctx.log.info(`send: ${n.released} recipients claimed by a stopped worker went back to the queue`);
  }

  /** The heartbeat (every SEND_LEASE_MS / 3): keeps this worker alive, recovers dead workers' rows. */
  async beat(): Promise<void> {
    try {
      this.report(await ledger.keepAlive(this.ctx.db, this.me, { leaseMs: this.ctx.config.SEND_LEASE_MS }));
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'send: heartbeat failed');
    }
  }

  /** One batch of one sending campaign (campaigns take turns); false when there was nothing to send. */
  async round(): Promise<boolean> {
    const { db, config } = this.ctx;
    const campaigns = await sendingCampaigns(db);
    for (const id of this.prepared.keys()) if (!campaigns.some((c) => c.id === id)) this.forget(id);
    await this.pacing.backoffs.refresh();
    const start = this.turn++;
    for (let i = 0; i < campaigns.length && !this.stopped; i++) {
      const c = campaigns[(start + i) % campaigns.length]!;
      const size = Math.max(1, config.SEND_BATCH_SIZE);
      let claimId: number | null = null;
      // none when its domain's warm-up cap is used up today: the rows wait, queued, for the next day
      const batch = await warmup.claimWithin(db, config, c, size, async (n) => {
        const after = this.cursors.get(c.id) ?? 0;
        let claimed = await claim(db, c.id, this.me, n, after);
        // past the end: once more from the first row, for rows that came back (deferred, released)
        if (claimed.rows.length === 0 && after > 0) claimed = await claim(db, c.id, this.me, n, 0);
        claimId = claimed.id;
        const last = claimed.rows.at(-1);
        if (last) this.cursors.set(c.id, last.id);
        return claimed.rows;
      });
      if (batch.length === 0) {
        await this.writer.idle(); // our own rows still 'sending' would hold the finish back
        if (await ledger.finishIfDone(db, c.id)) this.forget(c.id);
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

  private async sendBatch(campaignId: string, batch: Claimed[]): Promise<void> {
    const { config } = this.ctx;
    let campaign: PreparedCampaign;
    try {
      campaign = await this.prepare(campaignId);
    } catch (err) {
      this.writer.add(ledger.failAll(batch, err));
      return;
    }
    const outcomes: Outcome[] = [];
    const ready = ledger.activeOnly(batch, outcomes);
    this.writer.add(outcomes);
    if (this.transport.sendMany && config.SEND_RATE_PER_SECOND === 0) {
      // the outbox is a table, not a mail server: no providers to spare, one INSERT for the batch
      let marked: Map<number, number>;
      try {
        marked = await this.writer.mark(ready.map((r) => this.planMessage(r)));
      } catch {
        return this.writer.add(ready.map(ledger.released));
      }
      const done: Outcome[] = [];
      const mine = ready.filter((r) => marked.has(r.id));
      const built = mine.flatMap((row) => ledger.compose(campaign, row, done));
      const results = await this.transport
        .sendMany(built.map((b) => b.msg))
        .catch((err) => built.map(() => transient(err)));
      built.forEach((b, i) => done.push(outcomeOf(config, b.row, results[i]!)));
      this.writer.add(done);
      return;
    }
    await this.pump(campaign, ready, await this.pacing.providersOf(ready.map((r) => r.email)));
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
  private async pump(campaign: PreparedCampaign, rows: Claimed[], providers: string[]): Promise<void> {
    const { gates, backoffs, rate } = this.pacing;
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
        if (backoffs.any)
          for (let k = queues.length - 1; k >= 0; k--)
            if (backoffs.backingOff(queues[k]!.provider)) {
              const q = queues.splice(k, 1)[0]!;
              this.writer.defer(rest(q).map((row) => ({ id: row.id, provider: q.provider })));
            }
        // the next provider in turn that may take a message now; otherwise wait for one
        let picked = -1;
        let waitMs = 1000;
        for (let k = 0; k < queues.length; k++) {
          const i = (turn + k) % queues.length;
          const ready = gates.ready(queues[i]!.provider);
          if (ready === 0) {
            picked = i;
            break;
          }
          if (ready !== false) waitMs = Math.min(waitMs, ready);
        }
        if (picked < 0) {
          if (queues.length > 0) await gates.wait(waitMs);
          continue;
        }
        const q = queues[picked]!;
        const row = q.rows[q.next++]!;
        if (q.next >= q.rows.length) queues.splice(picked, 1);
        turn = picked + 1;
        await rate.take();
        await this.slots.acquire();
        if (backoffs.backingOff(q.provider)) {
          this.writer.defer([{ id: row.id, provider: q.provider }], true);
          continue;
        }
        gates.take(q.provider);
        pending++;
        void this.handOver(campaign, row, q.provider).finally(settle);
      }
    } finally {
      if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
    }
  }

  /** The Message-ID of the row's next message, recorded with its mark and used when it is built. */
  private planMessage(row: Claimed): Mark {
    row.message_id = newMessageId(this.ctx.config);
    return { id: row.id, message_id: row.message_id };
  }

  /** One message: marked 'sending', rendered, sent; its outcome goes to the writer with its slot. */
  private async handOver(campaign: PreparedCampaign, row: Claimed, provider: string): Promise<void> {
    const { config } = this.ctx;
    const { gates, backoffs } = this.pacing;
    let attempt: number | undefined;
    try {
      attempt = (await this.writer.mark(this.planMessage(row))).get(row.id);
    } catch {
      // the write failed: the row may be marked or not, so it goes back (a no-op when it was not)
      gates.done(provider);
      return this.writer.add([ledger.released(row)], true);
    }
    if (attempt === undefined) {
      // cancelled meanwhile (skipped by the cancel) or taken by another worker: nothing to write
      gates.done(provider);
      return this.slots.release();
    }
    row.attempts = attempt;
    if (backoffs.backingOff(provider)) {
      gates.done(provider);
      return this.writer.defer([{ id: row.id, provider }], true);
    }
    const failed: Outcome[] = [];
    const [built] = ledger.compose(campaign, row, failed);
    let res: SendResult;
    if (!built) {
      gates.done(provider);
      return this.writer.add(failed, true);
    }
    try {
      res = await this.transport.send(built.msg);
    } catch (err) {
      res = transient(err);
    }
    gates.done(provider);
    let outcome = outcomeOf(config, row, res);
    if (isThrottled(res)) outcome = throttledOutcome(outcome, backoffs.throttled(provider));
    this.writer.add([outcome], true);
  }

  /** The prepared campaign, once per campaign while it sends (only drafts change, so it cannot go stale). */
  private prepare(campaignId: string): Promise<PreparedCampaign> {
    let p = this.prepared.get(campaignId);
    if (!p) {
      p = ledger.prepareCampaign(this.ctx.db, this.ctx.config, campaignId);
      p.catch(() => this.prepared.delete(campaignId));
      this.prepared.set(campaignId, p);
    }
    return p;
  }

  /** The campaign's status, re-read at most every STATUS_TTL_MS (a cancel is seen within that time). */
  private status(campaignId: string): Promise<string | undefined> {
    const cached = this.statuses.get(campaignId);
    if (cached && Date.now() - cached.at < STATUS_TTL_MS) return cached.status;
    const status = campaignStatus(this.ctx.db, campaignId);
    this.statuses.set(campaignId, { at: Date.now(), status });
    return status;
  }

  private forget(campaignId: string): void {
    this.prepared.delete(campaignId);
    this.statuses.delete(campaignId);
    this.cursors.delete(campaignId);
  }
}
