// Which providers this process does not send to right now, and until when: the database's view
// (provider_backoff, shared by every instance, re-read at most every BACKOFF_TTL_MS) joined with the
// backoffs this process started and is still storing.
import { backOff, backoffs } from './ledgerQueries.ts';
import type { PacingDeps } from './deps.ts';

// how stale this process's view of the providers' backoffs may be (another instance's backoff is seen then)
const BACKOFF_TTL_MS = 1000;

export class ProviderBackoffs {
  /** providers backing off, by until when */
  private until = new Map<string, Date>();
  private readAt = 0;
  /** backoffs being stored: deferrals wait for them, so they carry the database's until */
  private storing: Promise<void>[] = [];

  constructor(private readonly ctx: PacingDeps) {}

  get any(): boolean {
    return this.until.size > 0;
  }

  /** The provider asked us to slow down: back off here at once, and for every instance in the database. */
  throttled(provider: string): Date {
    const { config, db, log } = this.ctx;
    const current = this.until.get(provider);
    if (current && current.getTime() > Date.now()) return current;
    const until = new Date(Date.now() + Math.min(config.PROVIDER_BACKOFF_BASE_MS, config.PROVIDER_BACKOFF_MAX_MS));
    this.until.set(provider, until);
    this.storing.push(
      backOff(db, provider, config.PROVIDER_BACKOFF_BASE_MS, config.PROVIDER_BACKOFF_MAX_MS)
        .then((at) => {
          this.until.set(provider, at);
          log.warn(`send: ${provider} throttles; its recipients wait until ${at.toISOString()}`);
        })
        .catch((err) => log.error({ err }, `send: could not store the backoff of ${provider}`)),
    );
    return until;
  }

  /** Resolves once the backoffs started so far are stored (and `until` reads the database's time). */
  async stored(): Promise<void> {
    if (this.storing.length === 0) return;
    const waiting = this.storing;
    this.storing = [];
    await Promise.all(waiting);
  }

  backingOff(provider: string): boolean {
    const until = this.until.get(provider);
    if (!until) return false;
    if (until.getTime() > Date.now()) return true;
    this.until.delete(provider);
    return false;
  }

  /** When a message deferred for `provider` is due again: its backoff's end, or one base backoff from now. */
  deferredUntil(provider: string): Date {
    const until = this.until.get(provider);
    return until && until.getTime() > Date.now()
      ? until
      : new Date(Date.now() + this.ctx.config.PROVIDER_BACKOFF_BASE_MS);
  }

  /** Re-reads the database's backoffs when this view is older than BACKOFF_TTL_MS. */
  async refresh(): Promise<void> {
    if (Date.now() - this.readAt < BACKOFF_TTL_MS) return;
    this.readAt = Date.now();
    try {
      const rows = await backoffs(this.ctx.db);
      const next = new Map<string, Date>();
      for (const r of rows) next.set(r.provider, r.until);
      // ours may be ahead of the database (a backoff being written)
      for (const [p, until] of this.until) if (until.getTime() > (next.get(p)?.getTime() ?? 0)) next.set(p, until);
      this.until = next;
    } catch (err) {
      this.ctx.log.error({ err }, 'send: could not read the providers’ backoffs');
    }
  }
}
