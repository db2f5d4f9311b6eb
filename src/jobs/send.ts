// Campaign send workers: each process runs one Sender (send/sender.ts), whose lanes claim ledger batches
// and pace the send steps of domain/campaigns/sending.ts; everything they write to the ledger goes
// through one writer (send/ledgerWriter.ts). The scheduler wakes the lanes when it starts a campaign.
import type { MxResolver } from '../domain/campaigns/providers.ts';
import type { StopFn, WorkerContext } from './context.ts';
import { Sender } from './send/sender.ts';

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
  const sender = new Sender(ctx, mxResolver);
  wakeAll = await sender.start();
  return () => sender.stop();
}
