// Campaign send workers: the wiring of the send steps (domain/campaigns/sending.ts). Two lanes per
// process claim ledger batches, render each message just before handing it to the process's one pooled
// transport (SEND_CONCURRENCY connections, twice that many messages queued), and write each batch's
// outcomes set-based while already sending the next. A heartbeat keeps this worker's rows its own; rows of
// a worker that died become 'interrupted', never sent twice.
import { randomUUID } from 'node:crypto';
import { RateGate } from '../domain/campaigns/sendRate.ts';
import * as sending from '../domain/campaigns/sending.ts';
import type { MailTransport, SendResult } from '../mail/transport.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { startLoop, type PollLoop } from './pollLoop.ts';

const LANES = 2;
// how stale a campaign's status may be when a lane decides whether to keep sending (cancel latency)
const STATUS_TTL_MS = 200;

let wakeAll: () => void = () => {};
/** Cuts the idle wait short (the scheduler calls it after starting campaigns). */
export function wake(): void {
  wakeAll();
}

export async function register(ctx: WorkerContext): Promise<StopFn> {
  const sender = new Sender(ctx);
  await sender.start();
  return () => sender.stop();
}

class Sender {
  private readonly me = randomUUID();
  private readonly transport: MailTransport;
  private readonly slots: Semaphore;
  private readonly rate: RateGate;
  private readonly prepared = new Map<string, Promise<sending.PreparedCampaign>>();
  private readonly statuses = new Map<string, { at: number; status: Promise<string | undefined> }>();
  private stopped = false;
  private lanes: PollLoop[] = [];
  private readonly recording = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private turn = 0;

  constructor(private readonly ctx: WorkerContext) {
    this.transport = ctx.transport;
    // twice the SMTP connections: the pool then always has the next message queued when a connection
    // frees up (the pool itself still opens at most SEND_CONCURRENCY connections)
    this.slots = new Semaphore(2 * Math.max(1, ctx.config.SEND_CONCURRENCY));
    this.rate = new RateGate(ctx.db, ctx.config.SEND_RATE_PER_SECOND);
  }

  async start(): Promise<void> {
    const { db, config, handle, log } = this.ctx;
    // PGlite allows one process per data dir: whatever is still 'sending' now was cut off by a crash
    const n = await sending.keepAlive(db, this.me, {
      leaseMs: config.SEND_LEASE_MS,
      allButMe: handle.kind === 'pglite',
    });
    if (n > 0)
      this.ctx.log.warn(`send: ${n} recipients were mid-send when a worker stopped; marked interrupted, not re-sent`);
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
    await Promise.all(this.recording);
    await sending.retireWorker(this.ctx.db, this.me, this.ctx.config.SEND_LEASE_MS).catch(() => {});
  }

  private async beat(): Promise<void> {
    try {
      const n = await sending.keepAlive(this.ctx.db, this.me, { leaseMs: this.ctx.config.SEND_LEASE_MS });
      if (n > 0) this.ctx.log.warn(`send: ${n} recipients of a stopped worker marked interrupted, not re-sent`);
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'send: heartbeat failed');
    }
  }

  /** One batch of one sending campaign (campaigns take turns); false when there was nothing to send. */
  private async round(): Promise<boolean> {
    const { db, config } = this.ctx;
    const campaigns = await sending.sendingCampaigns(db);
    for (const id of this.prepared.keys()) if (!campaigns.some((c) => c.id === id)) this.forget(id);
    const start = this.turn++;
    for (let i = 0; i < campaigns.length && !this.stopped; i++) {
      const c = campaigns[(start + i) % campaigns.length]!;
      const batch = await sending.claim(db, c.id, this.me, Math.max(1, config.SEND_BATCH_SIZE));
      if (batch.length === 0) {
        await Promise.all(this.recording); // our own rows still 'sending' would hold the finish back
        if (await sending.finishIfDone(db, c.id)) this.forget(c.id);
        continue;
      }
      await this.sendBatch(c.id, batch);
      return true;
    }
    return false;
  }

  private async sendBatch(campaignId: string, batch: sending.Claimed[]): Promise<void> {
    const { db, config } = this.ctx;
    let campaign: sending.PreparedCampaign;
    try {
      campaign = await this.prepare(campaignId);
    } catch (err) {
      await sending.record(db, this.me, sending.failAll(batch, err));
      return;
    }
    const outcomes: sending.Outcome[] = [];
    const ready = sending.activeOnly(batch, outcomes);
    if (this.transport.sendMany && config.SEND_RATE_PER_SECOND === 0) {
      const built = ready.flatMap((row) => sending.compose(campaign, row, outcomes));
      const results = await this.transport
        .sendMany(built.map((b) => b.msg))
        .catch((err) => built.map(() => sending.transient(err)));
      built.forEach((b, i) => outcomes.push(sending.outcomeOf(config, b.row, results[i]!)));
    } else {
      await this.pump(campaign, ready, outcomes);
    }
    await this.recordLater(outcomes);
  }

  /**
   * Writes a batch's outcomes without holding up the lane: it claims and sends its next batch while the
   * database takes these (measured: with the write awaited, both lanes sometimes sat in the database at
   * once and every SMTP connection idled, 5-15 % of the time). At most LANES writes are outstanding;
   * a write that fails is retried, and until it lands the rows stay 'sending' (never sent twice).
   */
  private async recordLater(outcomes: sending.Outcome[]): Promise<void> {
    while (this.recording.size >= LANES) await Promise.race(this.recording);
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await sending.record(this.ctx.db, this.me, outcomes);
          return;
        } catch (err) {
          if (attempt >= 5)
            return void this.ctx.log.error(
              { err },
              'send: could not record a batch; its rows stay sending until this worker restarts, then become interrupted',
            );
          await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
        }
      }
    })();
    this.recording.add(write);
    void write.finally(() => this.recording.delete(write));
  }

  /**
   * Renders and sends one by one through the shared slots, rendering each message just before it goes
   * (a whole batch rendered at once would block the event loop and idle every SMTP connection meanwhile).
   * Stops handing out messages on cancel or shutdown. Nothing per message outlives its send: a batch's
   * worth of held promises or copies would survive into V8's old generation (docs/performance.md, Sending).
   */
  private async pump(
    campaign: sending.PreparedCampaign,
    rows: sending.Claimed[],
    outcomes: sending.Outcome[],
  ): Promise<void> {
    const { config } = this.ctx;
    let pending = 0;
    let drained: (() => void) | undefined;
    const settle = (row: sending.Claimed, res: SendResult) => {
      outcomes.push(sending.outcomeOf(config, row, res));
      this.slots.release();
      if (--pending === 0) drained?.();
    };
    for (const row of rows) {
      if (this.stopped) {
        outcomes.push(sending.released(row));
        continue;
      }
      if ((await this.status(campaign.id)) !== 'sending') {
        outcomes.push(sending.cancelled(row));
        continue;
      }
      await this.rate.take();
      await this.slots.acquire();
      const [built] = sending.compose(campaign, row, outcomes);
      if (!built) {
        this.slots.release();
        continue;
      }
      pending++;
      this.transport.send(built.msg).then(
        (res) => settle(row, res),
        (err) => settle(row, sending.transient(err)),
      );
    }
    if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
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
