// Background work: scheduler. Not built yet.
import type { StopFn, WorkerContext } from './index.ts';

export async function register(_ctx: WorkerContext): Promise<StopFn | void> {}
