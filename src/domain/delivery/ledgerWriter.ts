// Everything a send worker writes to the ledger goes through here, one statement at a time: the
// 'sending' marks of the messages about to go to SMTP, the outcomes of those that went, and the claims
// whose batches are done (ledger.write), plus the rows put back because their provider backs off. What
// arrives while a statement runs goes in the next one, so statements follow the database's round trips,
// not the messages: a message costs one round trip for its mark, and its outcome rides in the statement
// that marks the next messages.
import type { ProviderBackoffs } from './backoffs.ts';
import { write } from './ledger.ts';
import { defer, type Mark, type Outcome, type Writes } from './ledgerQueries.ts';
import type { PacingDeps } from './deps.ts';
import type { Semaphore } from './semaphore.ts';

export interface Deferral {
  id: number;
  provider: string;
}

/** tries of a write before its outcomes are given up on (their rows stay 'sending' until the worker restarts) */
const ATTEMPTS = 5;

interface MarkWait {
  promise: Promise<Map<number, number>>;
  resolve: (marked: Map<number, number>) => void;
  reject: (err: unknown) => void;
}

/**
 * Slots: a message holds one of the worker's SEND_IN_FLIGHT slots from before its mark until its outcome
 * is handed here. The slot is given back at once, not after the write: whoever takes it next is marked
 * in the statement that writes this outcome or in a later one, which commits the outcome before or with
 * the mark, so at no committed moment are more rows 'sending' than there are slots.
 */
export class LedgerWriter {
  private outcomes: Outcome[] = [];
  private deferrals: Deferral[] = [];
  private marks: Mark[] = [];
  private markWait?: MarkWait;
  private done: number[] = [];
  /** the write running now; the loop starts the next when there is more */
  private current?: Promise<void>;
  private running = false;
  private added = 0;
  private written = 0;

  constructor(
    private readonly ctx: PacingDeps,
    private readonly me: string,
    private readonly slots: Semaphore,
    private readonly backoffs: ProviderBackoffs,
  ) {}

  /**
   * Marks rows 'sending' in the next statement: resolves with the rows that were (id → the attempt their
   * send is); a row cancelled meanwhile, or taken by another worker, is not among them. Rejects when the
   * write failed: the rows may or may not be marked, so the caller puts them back (`ledger.released`).
   */
  mark(rows: Mark | Mark[]): Promise<Map<number, number>> {
    if (Array.isArray(rows) && rows.length === 0) return Promise.resolve(new Map());
    if (!Array.isArray(rows)) this.marks.push(rows);
    else for (const m of rows) this.marks.push(m);
    if (!this.markWait) {
      let resolve!: MarkWait['resolve'];
      let reject!: MarkWait['reject'];
      const promise = new Promise<Map<number, number>>((res, rej) => ((resolve = res), (reject = rej)));
      this.markWait = { promise, resolve, reject };
    }
    this.added++;
    this.kick();
    return this.markWait.promise;
  }

  /** `holdsSlot`: each of these outcomes gives its slot back (see the class comment). */
  add(outcomes: Outcome[], holdsSlot = false): void {
    if (outcomes.length === 0) return;
    for (const o of outcomes) this.outcomes.push(o);
    if (holdsSlot) this.slots.release(outcomes.length);
    this.added++;
    this.kick();
  }

  /** Rows back to the queue until their provider's backoff ends (`holdsSlot` as for `add`). */
  defer(rows: Deferral[], holdsSlot = false): void {
    if (rows.length === 0) return;
    for (const d of rows) this.deferrals.push(d);
    if (holdsSlot) this.slots.release(rows.length);
    this.added++;
    this.kick();
  }

  /** A claim whose every row has its outcome (or deferral) added: dropped with them or after. */
  finished(claimId: number | null): void {
    if (claimId === null) return;
    this.done.push(claimId);
    this.added++;
    this.kick();
  }

  /** Resolves once everything added before the call is written (not what comes in meanwhile). */
  async idle(): Promise<void> {
    const target = this.added;
    while (this.written < target && this.running) await (this.current ?? new Promise((r) => setImmediate(r)));
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    // started on the next turn of the event loop: what the lanes hand over meanwhile joins it
    setImmediate(() => void this.loop());
  }

  private async loop(): Promise<void> {
    while (this.outcomes.length + this.deferrals.length + this.marks.length + this.done.length > 0) {
      this.current = this.writeNext();
      await this.current;
    }
    this.current = undefined;
    this.running = false;
  }

  private async writeNext(): Promise<void> {
    const writes: Writes = { outcomes: this.outcomes, marks: this.marks, done: this.done };
    const deferrals = this.deferrals;
    const wait = this.markWait;
    const upTo = this.added;
    this.outcomes = [];
    this.marks = [];
    this.done = [];
    this.deferrals = [];
    this.markWait = undefined;
    if (deferrals.length > 0) await this.backoffs.stored();
    try {
      const marked = await this.write(writes, deferrals);
      wait?.resolve(marked);
    } catch (err) {
      wait?.reject(err);
    }
    this.written = upTo;
  }

  private async write(writes: Writes, deferrals: Deferral[]): Promise<Map<number, number>> {
    const { db, log } = this.ctx;
    for (let attempt = 1; ; attempt++) {
      try {
        if (deferrals.length > 0)
          await defer(
            db,
            this.me,
            deferrals.map((d) => ({ ...d, until: this.backoffs.deferredUntil(d.provider) })),
          );
        deferrals = [];
        return (await write(db, this.me, writes)).marked;
      } catch (err) {
        if (attempt >= ATTEMPTS) {
          log.error(
            { err },
            'send: could not record outcomes; their rows stay sending until this worker restarts, then become interrupted',
          );
          throw err;
        }
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  }
}
