// Campaign send workers. Two lanes per process claim ledger batches (FOR UPDATE SKIP LOCKED,
// committed as 'sending' before SMTP), render each message just before handing it to one pooled transport
// (SEND_CONCURRENCY connections, twice that many messages queued), and write each batch's outcomes
// set-based while already sending the next. A heartbeat keeps this worker's rows its own; rows of a worker
// that died become 'interrupted' (ledger.interruptOrphans), never sent twice.
import { randomUUID } from 'node:crypto';
import * as ledger from '../domain/campaigns/ledger.ts';
import { prepare, type PreparedCampaign } from '../mail/campaignMessage.ts';
import { createTransport, type MailTransport, type OutgoingMessage, type SendResult } from '../mail/transport.ts';
import type { StopFn, WorkerContext } from './index.ts';
import { RateGate } from './sendRate.ts';

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
  private readonly prepared = new Map<string, Promise<PreparedCampaign>>();
  private readonly statuses = new Map<string, { at: number; status: Promise<string | undefined> }>();
  private stopped = false;
  private lanes: Promise<void>[] = [];
  private readonly recording = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private sleepers = new Set<() => void>();
  private turn = 0;

  constructor(private readonly ctx: WorkerContext) {
    this.transport = createTransport(ctx.config, ctx.db);
    // twice the SMTP connections: the pool then always has the next message queued when a connection
    // frees up (the pool itself still opens at most SEND_CONCURRENCY connections)
    this.slots = new Semaphore(2 * Math.max(1, ctx.config.SEND_CONCURRENCY));
    this.rate = new RateGate(ctx.db, ctx.config.SEND_RATE_PER_SECOND);
  }

  async start(): Promise<void> {
    const { db, config, handle } = this.ctx;
    await ledger.heartbeat(db, this.me);
    // PGlite allows one process per data dir: whatever is still 'sending' now was cut off by a crash
    const n = await ledger.interruptOrphans(db, { leaseMs: config.SEND_LEASE_MS, me: this.me, allButMe: handle.kind === 'pglite' });
    if (n > 0) this.ctx.log.warn(`send: ${n} recipients were mid-send when a worker stopped; marked interrupted, not re-sent`);
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(config.SEND_LEASE_MS / 3)));
    this.timer.unref();
    wakeAll = () => this.wakeUp();
    for (let i = 0; i < LANES; i++) this.lanes.push(this.lane());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp();
    clearInterval(this.timer);
    await Promise.all(this.lanes);
    await Promise.all(this.recording);
    await ledger.retireWorker(this.ctx.db, this.me, this.ctx.config.SEND_LEASE_MS).catch(() => {});
    await this.transport.close();
  }

  private async beat(): Promise<void> {
    try {
      await ledger.heartbeat(this.ctx.db, this.me);
      const n = await ledger.interruptOrphans(this.ctx.db, { leaseMs: this.ctx.config.SEND_LEASE_MS, me: this.me });
      if (n > 0) this.ctx.log.warn(`send: ${n} recipients of a stopped worker marked interrupted, not re-sent`);
    } catch (err) {
      if (!this.stopped) this.ctx.log.error({ err }, 'send: heartbeat failed');
    }
  }

  private async lane(): Promise<void> {
    while (!this.stopped) {
      let busy = false;
      try {
        busy = await this.round();
      } catch (err) {
        if (this.stopped) break;
        this.ctx.log.error({ err }, 'send: round failed');
      }
      if (!busy) await this.sleep(this.ctx.config.WORKER_POLL_MS);
    }
  }

  /** One batch of one sending campaign (campaigns take turns); false when there was nothing to send. */
  private async round(): Promise<boolean> {
    const { db, config } = this.ctx;
    const campaigns = await ledger.sendingCampaigns(db);
    for (const id of this.prepared.keys()) if (!campaigns.some((c) => c.id === id)) this.forget(id);
    const start = this.turn++;
    for (let i = 0; i < campaigns.length && !this.stopped; i++) {
      const c = campaigns[(start + i) % campaigns.length]!;
      const batch = await ledger.claim(db, c.id, this.me, Math.max(1, config.SEND_BATCH_SIZE));
      if (batch.length === 0) {
        await Promise.all(this.recording); // our own rows still 'sending' would hold the finish back
        if (await ledger.finishIfDone(db, c.id)) this.forget(c.id);
        continue;
      }
      await this.sendBatch(c, batch);
      return true;
    }
    return false;
  }

  private async sendBatch(c: { id: string; account_id: string }, batch: ledger.Claimed[]): Promise<void> {
    const { db, config } = this.ctx;
    const outcomes: ledger.Outcome[] = [];
    let campaign: PreparedCampaign;
    try {
      campaign = await this.prepare(c.id);
    } catch (err) {
      // a template that compiled when it was saved cannot fail here; if it does, nobody gets a broken mail
      const error = `Template error: ${(err as Error).message}`;
      await ledger.record(db, this.me, batch.map((r) => ({ id: r.id, state: 'failed' as const, error })));
      return;
    }
    const ready: ledger.Claimed[] = [];
    for (const row of batch) {
      // the audience was frozen earlier; whoever unsubscribed, bounced or complained since is not mailed
      if (row.status === 'active') ready.push(row);
      else outcomes.push({ id: row.id, state: 'skipped', error: `Subscriber is ${row.status}` });
    }
    if (this.transport.sendMany && config.SEND_RATE_PER_SECOND === 0) {
      const built = ready.flatMap((row) => this.build(campaign, row, outcomes));
      const results = await this.transport.sendMany(built.map((b) => b.msg)).catch((err) => built.map(() => transient(err)));
      built.forEach((b, i) => outcomes.push(this.outcome(b.row, results[i]!)));
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
  private async recordLater(outcomes: ledger.Outcome[]): Promise<void> {
    while (this.recording.size >= LANES) await Promise.race(this.recording);
    const write = (async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await ledger.record(this.ctx.db, this.me, outcomes);
          return;
        } catch (err) {
          if (attempt >= 5) return void this.ctx.log.error({ err }, 'send: could not record a batch; its rows stay sending until this worker restarts, then become interrupted');
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
  private async pump(campaign: PreparedCampaign, rows: ledger.Claimed[], outcomes: ledger.Outcome[]): Promise<void> {
    let pending = 0;
    let drained: (() => void) | undefined;
    const settle = (row: ledger.Claimed, res: SendResult) => {
      outcomes.push(this.outcome(row, res));
      this.slots.release();
      if (--pending === 0) drained?.();
    };
    for (const row of rows) {
      if (this.stopped) {
        // never handed to SMTP: back to the queue for the next worker, attempt not counted
        outcomes.push({ id: row.id, state: 'queued', error: 'Released at shutdown', retry_in_ms: 0, release: true });
        continue;
      }
      if ((await this.status(campaign.id)) !== 'sending') {
        outcomes.push({ id: row.id, state: 'skipped', error: 'Campaign was cancelled' });
        continue;
      }
      await this.rate.take();
      await this.slots.acquire();
      const [built] = this.build(campaign, row, outcomes);
      if (!built) {
        this.slots.release();
        continue;
      }
      pending++;
      this.transport.send(built.msg).then(
        (res) => settle(row, res),
        (err) => settle(row, transient(err)),
      );
    }
    if (pending > 0) await new Promise<void>((resolve) => (drained = resolve));
  }

  /** The message for one recipient, or a `failed` outcome when its template fails at render time. */
  private build(campaign: PreparedCampaign, row: ledger.Claimed, outcomes: ledger.Outcome[]): { row: ledger.Claimed; msg: OutgoingMessage }[] {
    try {
      return [{ row, msg: campaign.build({ ...row, id: row.subscriber_id }) }];
    } catch (err) {
      outcomes.push({ id: row.id, state: 'failed', error: `Template error: ${(err as Error).message}` });
      return [];
    }
  }

  private outcome(row: ledger.Claimed, res: SendResult): ledger.Outcome {
    if (res.ok) return { id: row.id, state: 'sent', message_id: res.messageId };
    const { SEND_MAX_ATTEMPTS: max, SEND_RETRY_BASE_MS: base } = this.ctx.config;
    const error = res.code ? `${res.code} ${res.error}`.slice(0, 1000) : res.error.slice(0, 1000);
    if (res.permanent || row.attempts >= Math.max(1, max)) return { id: row.id, state: 'failed', error };
    return { id: row.id, state: 'queued', error, retry_in_ms: Math.max(1, base * 2 ** (row.attempts - 1)) };
  }

  private prepare(campaignId: string): Promise<PreparedCampaign> {
    let p = this.prepared.get(campaignId);
    if (!p) {
      p = (async () => {
        const { db, config } = this.ctx;
        const c = await db.selectFrom('campaigns').selectAll().where('id', '=', campaignId).executeTakeFirstOrThrow();
        const account = await db.selectFrom('accounts').selectAll().where('id', '=', c.account_id).executeTakeFirstOrThrow();
        const links = await db.selectFrom('campaign_links').select(['idx', 'url']).where('campaign_id', '=', campaignId).execute();
        return prepare(config, c, account, links);
      })();
      p.catch(() => this.prepared.delete(campaignId));
      this.prepared.set(campaignId, p);
    }
    return p;
  }

  /** The campaign's status, re-read at most every STATUS_TTL_MS (a cancel is seen within that time). */
  private status(campaignId: string): Promise<string | undefined> {
    const cached = this.statuses.get(campaignId);
    if (cached && Date.now() - cached.at < STATUS_TTL_MS) return cached.status;
    const status = this.ctx.db
      .selectFrom('campaigns')
      .select('status')
      .where('id', '=', campaignId)
      .executeTakeFirst()
      .then((r) => r?.status);
    this.statuses.set(campaignId, { at: Date.now(), status });
    return status;
  }

  private forget(campaignId: string): void {
    this.prepared.delete(campaignId);
    this.statuses.delete(campaignId);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, Math.max(20, ms));
      this.sleepers.add(done);
    });
  }

  private wakeUp(): void {
    for (const s of [...this.sleepers]) s();
  }
}

function transient(err: unknown): SendResult {
  return { ok: false, permanent: false, error: String((err as Error)?.message ?? err) };
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
