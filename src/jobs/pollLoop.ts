// A background loop that runs one round of work, repeats at once while rounds find work, and otherwise
// sleeps for the poll interval. wake() cuts a sleep short; stop() ends the sleep and waits for the
// round in progress, so servers in tests stop promptly. A failing round is logged and retried later.
import type { FastifyBaseLogger } from 'fastify';

/** What a loop logs through: a failed round (Fastify's logger fits). */
export type LoopLog = Pick<FastifyBaseLogger, 'error'> | { error(obj: { err: unknown }, msg: string): void };

export interface PollLoop {
  wake(): void;
  stop(): Promise<void>;
}

/** `round` returns true when it did work (then the next round runs without waiting). */
export function startLoop(
  name: string,
  intervalMs: number,
  log: LoopLog,
  round: (signal: AbortSignal) => Promise<boolean>,
): PollLoop {
  const abort = new AbortController();
  let wakeUp: (() => void) | undefined;
  let woken = false;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken || abort.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  const running = (async () => {
    while (!abort.signal.aborted) {
      woken = false;
      let busy = false;
      try {
        busy = await round(abort.signal);
      } catch (err) {
        if (abort.signal.aborted) break;
        log.error({ err }, `${name}: round failed`);
      }
      if (!busy) await sleep(Math.max(50, intervalMs));
    }
  })();
  return {
    wake() {
      woken = true;
      wakeUp?.();
    },
    async stop() {
      abort.abort();
      wakeUp?.();
      await running;
    },
  };
}
