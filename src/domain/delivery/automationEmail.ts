// One automation email through the same pipeline as a campaign's: the one message builder (message.ts),
// the process's pacing (the global send rate, the recipient provider's gate and backoff: pacing.ts) and
// the one outcome rule (outcome.ts). The run (automations/runs.ts) records what comes back in its own
// transaction. Not the warm-up cap: see warmup.ts.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { MailTransport, SendResult } from '../../mail/transport.ts';
import { buildAutomationEmail, type AutomationEmail } from './message.ts';
import { isThrottled, outcomeOf, renderFailed, throttledOutcome, transient, type Outcome } from './outcome.ts';
import type { Pacing } from './pacing.ts';

export interface AutomationSendDeps {
  db: Db;
  config: Config;
  transport: MailTransport;
  pacing: Pacing;
}

/**
 * What became of the email: an outcome by the one rule (its id is 0: the run's email has no ledger row),
 * or deferred without an attempt because the recipient's provider backs off until `until`.
 */
export type AutomationSend = { outcome: Outcome } | { deferred: { provider: string; until: Date } };

/** Sends one email; `attempts` is which attempt of the step this is (1 for the first). */
export async function sendAutomationEmail(
  deps: AutomationSendDeps,
  email: AutomationEmail,
  attempts: number,
): Promise<AutomationSend> {
  const { config, transport, pacing } = deps;
  const { gates, backoffs } = pacing;
  const provider = (await pacing.providersOf([email.subscriber.email]))[0]!;
  await backoffs.refresh();
  if (backoffs.backingOff(provider)) return { deferred: { provider, until: backoffs.deferredUntil(provider) } };
  let msg;
  try {
    // who it is sent as (key, return path) was resolved once by the run, before this email was planned
    msg = buildAutomationEmail(config, email);
  } catch (err) {
    return { outcome: renderFailed(0, err) };
  }
  await pacing.rate.take();
  for (let ready = gates.ready(provider); ready !== 0; ready = gates.ready(provider))
    await gates.wait(ready === false ? 1000 : ready);
  gates.take(provider);
  let res: SendResult;
  try {
    res = await transport.send(msg);
  } catch (err) {
    res = transient(err);
  } finally {
    gates.done(provider);
  }
  const outcome = outcomeOf(config, { id: 0, attempts }, res);
  return { outcome: isThrottled(res) ? throttledOutcome(outcome, backoffs.throttled(provider)) : outcome };
}
