// The global send rate (SEND_RATE_PER_SECOND, 0 = unlimited) shared by every instance through one
// token-bucket row in the database. Tokens are fetched in chunks of ~200 ms worth, so the database sees a
// few statements per second, not one per message; a chunk that overdraws the bucket waits the debt off.
import type { Db } from '../../db/client.ts';
import { takeSendTokens } from './ledgerQueries.ts';

export class RateGate {
  private local = 0;
  private refill?: Promise<void>;
  private readonly chunk: number;

  constructor(
    private readonly db: Db,
    private readonly perSecond: number,
  ) {
    this.chunk = Math.max(1, Math.ceil(perSecond / 5));
  }

  /** Resolves when one more message may leave. */
  async take(): Promise<void> {
    if (this.perSecond <= 0) return;
    while (this.local <= 0) {
      this.refill ??= this.fetch().finally(() => (this.refill = undefined));
      await this.refill;
    }
    this.local--;
  }

  private async fetch(): Promise<void> {
    const rate = this.perSecond;
    // capacity = one chunk: an idle period never saves up a burst above the configured rate
    const balance = await takeSendTokens(this.db, this.chunk, rate);
    if (balance < 0) await new Promise((resolve) => setTimeout(resolve, (-balance / rate) * 1000));
    this.local += this.chunk;
  }
}
