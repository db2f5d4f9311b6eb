// The one way tests wait for something that happens in the background (a worker, another connection, an
// SMTP delivery): poll a probe until it answers something truthy, and fail by name after a timeout.

type Probe<T> = () => T | undefined | null | false | Promise<T | undefined | null | false>;

/**
 * Resolves with the probe's first truthy answer; rejects after `ms` with "timed out … waiting for <what>".
 * Polls quickly at first (a flag another part of the process sets), then every 50 ms (a database query).
 */
export function until<T>(what: string, probe: Probe<T>, ms?: number): Promise<T>;
export function until<T>(probe: Probe<T>, ms?: number): Promise<T>;
export async function until<T>(...args: [string, Probe<T>, number?] | [Probe<T>, number?]): Promise<T> {
  const [what, probe, ms = 15_000] =
    typeof args[0] === 'string'
      ? (args as [string, Probe<T>, number?])
      : (['a condition', ...args] as [string, Probe<T>, number?]);
  const end = Date.now() + ms;
  for (let pause = 5; ; pause = Math.min(pause * 2, 50)) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pause));
  }
}
