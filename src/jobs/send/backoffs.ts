// Which providers this process does not send to right now, and until when: the database's view
// (provider_backoff, shared by every instance, re-read at most every BACKOFF_TTL_MS) joined with the
// backoffs this process started and is still storing.
import * as sending from '../../domain/campaigns/sending.ts';
import type { WorkerContext } from '../context.ts';
import type { Deferral } from './ledgerWriter.ts';

// how stale this process's view of the providers' backoffs may be (another instance's backoff is seen then)
const BACKOFF_TTL_MS = 1000;

export class ProviderBackoffs {
  /** providers backing off, by until when */
  private until = new Map<string, Date>();
  private readAt = 0;

  constructor(
    private readonly ctx: WorkerContext,
    /** each backoff being stored: the writer's deferrals wait for it, so they carry the database's until */
    private readonly storing: (p: Promise<void>) => void,
  ) {}

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
    this.storing(
      sending
        .backOff(db, provider, config.PROVIDER_BACKOFF_BASE_MS, config.PROVIDER_BACKOFF_MAX_MS)
        .then((at) => {
          this.until.set(provider, at);
          log.warn(`send: ${provider} throttles; its recipients wait until ${at.toISOString()}`);
        })
        .catch((err) => log.error({ err }, `send: could not store the backoff of ${provider}`)),
    );
    return until;
  }

  backingOff(provider: string): boolean {
    const until = this.until.get(provider);
    if (!until) return false;
    if (until.getTime() > Date.now()) return true;
    this.until.delete(provider);
    return false;
  }

  /** When a deferred row is due again: its provider's backoff end, or one base backoff from now. */
  deferredUntil(d: Deferral): Date {
    const until = this.until.get(d.provider);
    return until && until.getTime() > Date.now()
      ? until
      : new Date(Date.now() + this.ctx.config.PROVIDER_BACKOFF_BASE_MS);
  }

  /** Re-reads the database's backoffs when this view is older than BACKOFF_TTL_MS. */
  async refresh(): Promise<void> {
    if (Date.now() - this.readAt < BACKOFF_TTL_MS) return;
    this.readAt = Date.now();
    try {
      const rows = await sending.backoffs(this.ctx.db);
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
