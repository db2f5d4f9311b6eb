// Moves automation runs through their steps. Each step's effect commits in the same transaction as the
// run's advance (position, next_run_at, history), so a restart never repeats a step. send_email is the
// exception that cannot share a transaction with SMTP; like campaigns it is at-most-once: the step is
// marked 'sending' and committed before the mail server sees it, and a run found still 'sending' after a
// crash is recorded as interrupted and moves on without sending again. The email itself goes through the
// delivery pipeline (delivery/automationEmail.ts): the same message builder, pacing and outcome rule as a
// campaign's.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { AutomationRow, RunHistoryDetail, RunRow } from '../../db/schema/automations.ts';
import type { Account, SubscriberRow } from '../../db/schema.ts';
import { mailFromAddress, resolveSender } from '../../mail/headers.ts';
import { newMessageId } from '../../mail/transport.ts';
import { sendAutomationEmail, type AutomationSend, type AutomationSendDeps } from '../delivery/automationEmail.ts';
import { bounceOf } from '../delivery/outcome.ts';
import * as automationEmails from './emails.ts';
import * as queries from './queries.ts';
import * as runQueries from './runQueries.ts';
import { branchPath, delayMs, nextPath, stepAt, type Step } from './steps.ts';
import { NotFound, Validation } from '../errors.ts';
import { recordEvent } from '../events/log.ts';
import { applyAtSend, type HardBounce } from '../feedback/bounces.ts';
import { senderIdentity } from '../sending/identity.ts';
import { returnPathDomainFor } from '../feedback/returnPath.ts';
import * as fields from '../subscribers/fields.ts';
import * as groups from '../subscribers/groups.ts';
import { whereMatches } from '../segments/filter.ts';
import * as subscribers from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import * as leases from '../instances/queries.ts';

export interface RunDeps extends AutomationSendDeps {
  db: Db;
  /** the worker instance that leases runs (its death releases them, src/jobs/supervisor.ts) */
  instanceId?: string;
}

type Turn = 'continue' | 'wait' | 'done';
type SendPlan = {
  run: RunRow;
  automation: AutomationRow;
  step: Extract<Step, { type: 'send_email' }>;
  sub: SubscriberRow;
  account: Account;
  messageId: string;
  email: automationEmails.TrackedEmail;
};

const MAX_HISTORY = 200;
const STEPS_PER_TURN = 100;

// a turn sends at most one email per step; five minutes covers a slow mail server with room to spare
const LEASE_MS = 5 * 60_000;

/**
 * One round of the run worker: leases the runs that are due, SEND_CONCURRENCY at a time (instances never
 * share one), and advances each. Returns how many it took.
 */
export async function advanceDue(deps: RunDeps): Promise<number> {
  const due = await runQueries.claimDueRuns(
    deps.db,
    Math.max(1, deps.config.SEND_CONCURRENCY),
    LEASE_MS,
    deps.instanceId,
  );
  await Promise.all(due.map((id) => advance(deps, id)));
  return due.length;
}

/** Hands back the runs leased by worker instances that stopped heartbeating; how many. */
export function releaseOrphans(db: Db, timeoutMs: number): Promise<number> {
  return leases.releaseOrphanedLeases(db, 'automation_runs', timeoutMs);
}

/** Hands back the runs this instance still leases (a graceful stop); how many. */
export function releaseHeldBy(db: Db, instanceId: string): Promise<number> {
  return leases.releaseLeasesOf(db, 'automation_runs', instanceId);
}

/** Runs the due steps of one leased run until it waits (delay, retry) or ends, then drops the lease. */
export async function advance(deps: RunDeps, runId: string): Promise<void> {
  for (let i = 0; i < STEPS_PER_TURN; i++) if ((await turn(deps, runId)) !== 'continue') break;
  await runQueries.releaseRun(deps.db, runId);
}

async function turn(deps: RunDeps, runId: string): Promise<Turn> {
  const plan = await inTransaction(deps.db, (trx) => prepareStep(trx, deps.config, runId));
  if (typeof plan === 'string') return plan;
  const result = await send(deps, plan); // network: outside any transaction
  return inTransaction(deps.db, (trx) => recordSend(trx, deps.config, plan, result));
}

/** One step in one transaction; for send_email only the 'sending' mark, returning what to send. */
async function prepareStep(trx: Db, config: Config, runId: string): Promise<Turn | SendPlan> {
  const run = await runQueries.lockActiveRun(trx, runId);
  if (!run) return 'done'; // canceled (disabled, deleted) or finished meanwhile
  if (run.next_run_at && new Date(run.next_run_at).getTime() > Date.now()) return 'wait';
  const automation = await queries.automationById(trx, run.automation_id);
  if (!automation?.enabled)
    return stop(trx, run, 'canceled', { type: 'run', result: 'canceled', reason: 'automation disabled' });
  const steps = automation.steps as Step[];
  const path = run.current_step;
  if (path === null) return moveTo(trx, run, automation, null, null);
  const step = stepAt(steps, path);
  if (!step)
    return stop(trx, run, 'failed', { step: path, type: 'run', result: 'failed', reason: 'step no longer exists' });
  if (run.step_state === 'sending') {
    // the last attempt may have reached the mail server before the process died: never send it twice
    await automationEmails.interrupt(trx, run.id, path);
    return moveTo(
      trx,
      run,
      automation,
      nextPath(steps, path),
      { step: path, type: step.type, result: 'interrupted' },
      { step_state: null, step_attempts: 0 },
    );
  }
  const sub = await queries.subscriberOf(trx, run.account_id, run.subscriber_id);
  switch (step.type) {
    case 'delay': {
      const until = new Date(Date.now() + delayMs(step, config.AUTOMATION_TIME_SCALE));
      await save(
        trx,
        run,
        { current_step: nextPath(steps, path), next_run_at: until },
        { step: path, type: 'delay', result: 'waiting', until: until.toISOString() },
      );
      return 'wait';
    }
    case 'add_to_group':
    case 'remove_from_group': {
      const result = await changeGroup(trx, sub, step.type, step.group_id);
      return moveTo(trx, run, automation, nextPath(steps, path), {
        step: path,
        type: step.type,
        result,
        group_id: step.group_id,
      });
    }
    case 'update_field': {
      const result = await updateField(trx, sub, step.field, step.value);
      return moveTo(trx, run, automation, nextPath(steps, path), {
        step: path,
        type: step.type,
        result,
        field: step.field,
      });
    }
    case 'condition': {
      const matched = await matches(trx, sub, step);
      const branch = matched ? 'then' : 'else';
      return moveTo(trx, run, automation, branchPath(steps, path, branch), {
        step: path,
        type: 'condition',
        result: branch,
      });
    }
    case 'send_email': {
      // an unsubscribed, bounced or complained subscriber's run stops before the next email
      if (sub.status !== 'active')
        return stop(trx, run, 'canceled', {
          step: path,
          type: 'send_email',
          result: 'canceled',
          reason: `subscriber ${sub.status}`,
        });
      const account = await queries.accountById(trx, run.account_id);
      const messageId = newMessageId(config);
      // the email's tracked row commits with the 'sending' mark: its id is the token the message carries
      const email = await automationEmails.begin(
        trx,
        run,
        path,
        step.content_html,
        account.tracking_enabled,
        messageId,
      );
      await save(trx, run, { step_state: 'sending', step_attempts: run.step_attempts + 1 }, null);
      return { run, automation, step, sub, account, messageId, email };
    }
  }
}

async function changeGroup(
  trx: Db,
  sub: SubscriberRow,
  type: 'add_to_group' | 'remove_from_group',
  groupId: string,
): Promise<string> {
  // the same membership change and event as the API's; a group deleted since the step was saved is skipped
  try {
    if (type === 'add_to_group')
      return (await groups.assign(trx, sub.account_id, groupId, sub.id)).added ? 'added' : 'already a member';
    return (await groups.unassign(trx, sub.account_id, groupId, sub.id)).removed ? 'removed' : 'not a member';
  } catch (err) {
    if (err instanceof NotFound && err.message === groups.NOT_FOUND) return 'skipped: group not found';
    throw err;
  }
}

async function updateField(trx: Db, sub: SubscriberRow, field: string, value: unknown): Promise<string> {
  const input = field.startsWith('custom_fields.')
    ? { custom_fields: { [field.slice('custom_fields.'.length)]: value } }
    : { [field]: value };
  try {
    await subscribers.update(trx, sub.account_id, sub.id, input);
    return 'updated';
  } catch (err) {
    // the field was deleted or retyped after the automation was saved: skip the step, keep the run going
    if (err instanceof Validation) return `skipped: ${err.message}`;
    throw err;
  }
}

async function matches(trx: Db, sub: SubscriberRow, step: Extract<Step, { type: 'condition' }>): Promise<boolean> {
  const types = await fields.definitions(trx, sub.account_id);
  return queries.subscriberMatches(trx, sub.account_id, sub.id, whereMatches(step.filter, types));
}

async function send(deps: RunDeps, p: SendPlan): Promise<AutomationSend> {
  // who the email is sent as, resolved once: the DKIM key and the return path both come from it
  const from = resolveSender(deps.config, p.step, p.account).from;
  const identity = await senderIdentity(deps.db, deps.config, p.run.account_id, from);
  const returnPathDomain = await returnPathDomainFor(
    deps.db,
    deps.config,
    p.run.account_id,
    mailFromAddress(from),
    identity,
  );
  return sendAutomationEmail(
    deps,
    {
      accountId: p.run.account_id,
      automationId: p.automation.id,
      step: p.step,
      account: p.account,
      subscriber: p.sub,
      emailId: p.email.id,
      links: p.email.links,
      messageId: p.messageId,
      returnPathDomain,
      identity,
    },
    p.run.step_attempts + 1,
  );
}

/**
 * What came of the email: sent (email.sent with automation_id); retried later (a 4xx, or no answer, until
 * SEND_MAX_ATTEMPTS); deferred without an attempt while its provider backs off; or failed, and the run
 * with it — a hard bounce or an expired deferral going through the subscriber's bounce rules first.
 */
async function recordSend(trx: Db, config: Config, p: SendPlan, sent: AutomationSend): Promise<Turn> {
  const run = await runQueries.lockRun(trx, p.run.id);
  if (!run) return 'done';
  const path = p.run.current_step!;
  const steps = p.automation.steps as Step[];
  const source = { automation_id: p.automation.id, step: path, run_id: run.id };
  if ('deferred' in sent) {
    const { provider, until } = sent.deferred;
    const entry = { step: path, type: 'send_email', result: 'deferred', provider, until: until.toISOString() };
    if (run.status !== 'active') return save(trx, run, { step_state: null }, entry).then(() => 'done' as const);
    // the attempt was never made: it does not count toward SEND_MAX_ATTEMPTS
    const changes = { step_state: null, step_attempts: Math.max(0, run.step_attempts - 1), next_run_at: until };
    await save(trx, run, changes, entry);
    return 'wait';
  }
  const o = sent.outcome;
  const retry = o.state === 'queued' && run.status === 'active';
  await automationEmails.finish(
    trx,
    p.email.id,
    o.state === 'sent' ? 'sent' : retry ? 'sending' : 'failed',
    o.state === 'sent' ? o.message_id : undefined,
  );
  const bounce = bounceOf(o);
  if (bounce) {
    const row = { table: 'automation_emails' as const, id: p.email.id, message_id: p.messageId, source };
    const b: HardBounce = {
      subscriberId: p.sub.id,
      email: p.sub.email,
      row,
      messageId: p.messageId,
      extra: { smtp_status: o.state === 'failed' ? (o.reply?.status ?? null) : null },
    };
    if (bounce.kind === 'hard') await applyAtSend(trx, run.account_id, [b], [], 0);
    else await applyAtSend(trx, run.account_id, [], [b], bounce.limit);
  }
  if (o.state === 'sent') {
    await recordEvent(
      trx,
      run.account_id,
      'email.sent',
      { ...source, subscriber: { id: p.sub.id, email: p.sub.email }, message_id: o.message_id },
      p.sub.id,
    );
    await queries.addToCounter(trx, p.automation.id, 'emails_sent');
    const entry = { step: path, type: 'send_email', result: 'sent', message_id: o.message_id };
    const counted = { step_state: null, step_attempts: 0, emails_sent: run.emails_sent + 1 };
    // canceled while the email was with the mail server: the email counts, the run stays canceled
    if (run.status !== 'active') return save(trx, run, counted, entry).then(() => 'done' as const);
    return moveTo(trx, run, p.automation, nextPath(steps, path), entry, counted);
  }
  if (run.status !== 'active')
    return save(
      trx,
      run,
      { step_state: null },
      { step: path, type: 'send_email', result: 'not sent', error: o.error },
    ).then(() => 'done' as const);
  if (o.state === 'queued') {
    const retryAt = new Date(Date.now() + o.retry_in_ms);
    await save(
      trx,
      run,
      { step_state: null, next_run_at: retryAt },
      { step: path, type: 'send_email', result: 'retrying', error: o.error, retry_at: retryAt.toISOString() },
    );
    return 'wait';
  }
  return stop(
    trx,
    run,
    'failed',
    { step: path, type: 'send_email', result: 'failed', error: o.error },
    { step_state: null },
  );
}

type RunChanges = Partial<
  Pick<RunRow, 'current_step' | 'next_run_at' | 'step_state' | 'step_attempts' | 'emails_sent'>
>;

type Entry = RunHistoryDetail;

async function save(
  trx: Db,
  run: RunRow,
  changes: RunChanges,
  entries: Entry | Entry[] | null,
  extra: { status?: RunRow['status']; finished?: boolean } = {},
): Promise<void> {
  const at = new Date().toISOString();
  const added = (entries === null ? [] : Array.isArray(entries) ? entries : [entries]).map((e) => ({ at, ...e }));
  const history = added.length > 0 ? [...run.history, ...added].slice(-MAX_HISTORY) : run.history;
  await runQueries.updateRun(trx, run.id, {
    ...changes,
    ...(extra.status && { status: extra.status }),
    ...(extra.finished && { finished_at: new Date(), next_run_at: null, current_step: null }),
    history: JSON.stringify(history),
    updated_at: new Date(),
  });
  run.history = history;
}

/** Moves to `next` now, or completes the run when there is no next step (automation.completed). */
async function moveTo(
  trx: Db,
  run: RunRow,
  automation: AutomationRow,
  next: string | null,
  entry: Entry | null,
  changes: RunChanges = {},
): Promise<Turn> {
  if (next !== null) {
    await save(trx, run, { ...changes, current_step: next, next_run_at: new Date() }, entry);
    return 'continue';
  }
  await save(trx, run, changes, [...(entry ? [entry] : []), { type: 'run', result: 'completed' }], {
    status: 'completed',
    finished: true,
  });
  await queries.addToCounter(trx, automation.id, 'runs_completed');
  const sub = await queries.subscriberIdentity(trx, run.subscriber_id);
  await recordEvent(
    trx,
    run.account_id,
    'automation.completed',
    { automation: { id: automation.id, name: automation.name }, subscriber: sub, run_id: run.id },
    run.subscriber_id,
  );
  return 'done';
}

async function stop(
  trx: Db,
  run: RunRow,
  status: 'canceled' | 'failed',
  entry: Entry,
  changes: RunChanges = {},
): Promise<Turn> {
  await save(trx, run, changes, entry, { status, finished: true });
  await queries.addToCounter(trx, run.automation_id, status === 'canceled' ? 'runs_canceled' : 'runs_failed');
  return 'done';
}
