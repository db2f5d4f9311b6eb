// Automations of one account: create, get, list, update, enable/disable, remove, activity.
// A trigger and steps are validated against the account's data before they are saved (steps.ts);
// disabling or deleting cancels the runs in progress. Runs themselves are moved by runs.ts.
// Every query filters by accountId; another account's id reads as not found.
import { z } from 'zod';
import { offsetOf, PageQuery, pageOf, type Page } from '../paging.ts';
import type { Db } from '../../db/client.ts';
import type { AutomationRow, RunStatus } from '../../db/schema/automations.ts';
import * as automationEmails from './emails.ts';
import * as queries from './queries.ts';
import * as runQueries from './runQueries.ts';
import { checkDefinition, stepAt, Steps, Trigger, type Step } from './steps.ts';
import { NotFound, StateConflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { inTransaction } from '../transaction.ts';

export const NOT_FOUND = 'Automation not found';
export const RUN_STATUSES = ['active', 'completed', 'canceled', 'failed'] as const satisfies readonly RunStatus[];

const Name = z
  .string({ error: 'name is required' })
  .trim()
  .min(1, 'name is required')
  .max(255, 'name must be at most 255 characters');
const Enabled = z.boolean({ error: 'enabled must be true or false' });

export const NewAutomation = z.object({
  name: Name.describe('A name for the automation.'),
  enabled: Enabled.default(true).describe(
    'Start matching the trigger right away (default true). Only events from now on start runs.',
  ),
  trigger: Trigger.describe('What starts a run for a subscriber.'),
  steps: Steps.describe('What a run does, in order; condition steps branch into then/else lists.'),
});
export type NewAutomation = z.input<typeof NewAutomation>;

export const AutomationUpdate = z.object({
  name: Name.optional(),
  enabled: Enabled.optional(),
  trigger: Trigger.optional(),
  steps: Steps.optional(),
});
export type AutomationUpdate = z.input<typeof AutomationUpdate>;

/** REST query strings and MCP arguments alike; per_page above 100 is clamped. */
export const ListQuery = PageQuery;
export type ListQuery = z.input<typeof ListQuery>;

export const ActivityQuery = ListQuery.extend({
  status: z.enum(RUN_STATUSES, { error: 'status must be one of: active, completed, canceled, failed' }).optional(),
});
export type ActivityQuery = z.input<typeof ActivityQuery>;

/** What stats need beyond the automation's own counters: runs active now, and what happened to its emails. */
interface Live extends automationEmails.EmailStats {
  active: number;
}
const IDLE: Live = { active: 0, ...automationEmails.NO_EMAIL_STATS };

export function view(row: AutomationRow, live: Live = IDLE) {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    trigger: row.trigger,
    steps: row.steps,
    stats: {
      started: row.runs_started,
      active: live.active,
      completed: row.runs_completed,
      canceled: row.runs_canceled,
      failed: row.runs_failed,
      emails_sent: row.emails_sent,
      // as campaigns count them: every open/click, and the emails opened/clicked at least once
      opens: live.opens,
      unique_opens: live.unique_opens,
      clicks: live.clicks,
      unique_clicks: live.unique_clicks,
      // as campaigns count them: the emails whose unsubscribe link was used, that bounced hard, that were
      // reported as spam; soft bounces are every one reported
      unsubscribes: live.unsubscribes,
      bounces: live.bounces,
      complaints: live.complaints,
      soft_bounces: live.soft_bounces,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
export type Automation = ReturnType<typeof view>;

async function liveStats(db: Db, accountId: string, ids: string[]): Promise<Map<string, Live>> {
  const [active, emails] = await Promise.all([
    activeCounts(db, accountId, ids),
    automationEmails.emailStats(db, accountId, ids),
  ]);
  return new Map(
    ids.map((id) => [id, { active: active.get(id) ?? 0, ...(emails.get(id) ?? automationEmails.NO_EMAIL_STATS) }]),
  );
}

async function activeCounts(db: Db, accountId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await runQueries.activeRunCounts(db, accountId, ids);
  return new Map(rows.map((r) => [r.automation_id, Number(r.n)]));
}

export async function create(db: Db, accountId: string, input: unknown): Promise<Automation> {
  const a = parseInput(NewAutomation, input);
  const checked = await checkDefinition(db, accountId, a.trigger, a.steps);
  const row = await queries.insertAutomation(db, {
    account_id: accountId,
    name: a.name,
    enabled: a.enabled,
    trigger: JSON.stringify(checked.trigger),
    steps: JSON.stringify(checked.steps),
  });
  return view(row);
}

async function find(db: Db, accountId: string, id: string): Promise<AutomationRow> {
  const row = await queries.findAutomation(db, accountId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return row;
}

export async function get(db: Db, accountId: string, id: string): Promise<Automation> {
  const row = await find(db, accountId, id);
  return view(row, (await liveStats(db, accountId, [id])).get(id));
}

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<Automation>> {
  const q = parseInput(ListQuery, query);
  const rows = await queries.automationPage(db, accountId, q.per_page, offsetOf(q));
  const total = await queries.countAutomations(db, accountId);
  const live = await liveStats(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return pageOf(
    rows.map((r) => view(r, live.get(r.id))),
    q,
    total,
  );
}

/**
 * Changes name, enabled, trigger or steps. Runs hold positions in the steps, so trigger and steps can
 * only change while the automation is disabled (or is being disabled by this same update).
 */
export async function update(db: Db, accountId: string, id: string, input: unknown): Promise<Automation> {
  const u = parseInput(AutomationUpdate, input);
  const redefines = u.trigger !== undefined || u.steps !== undefined;
  const checked = redefines ? await checkDefinition(db, accountId, u.trigger, u.steps) : {};
  await inTransaction(db, async (trx) => {
    // the runs before the automation, the order the run worker takes them in (its run, then the
    // automation's counters), so a disable and a run step cannot wait on each other. Runs of an
    // automation that is already off have been canceled already, so this finds none.
    if (u.enabled === false) await cancelRuns(trx, accountId, id, 'automation disabled');
    const row = await queries.lockAutomation(trx, accountId, id);
    if (!row) throw new NotFound(NOT_FOUND);
    if (redefines && row.enabled && u.enabled !== false)
      throw new StateConflict('Disable the automation before changing its trigger or steps');
    await queries.updateAutomation(trx, id, {
      ...(u.name !== undefined && { name: u.name }),
      ...(u.enabled !== undefined && { enabled: u.enabled }),
      // enabling again matches events from now on, not those that happened while it was off
      ...(u.enabled === true && !row.enabled && { enabled_at: new Date(), scanned_on: null }),
      ...(checked.trigger && { trigger: JSON.stringify(checked.trigger), scanned_on: null }),
      ...(checked.steps && { steps: JSON.stringify(checked.steps) }),
      updated_at: new Date(),
    });
  });
  return get(db, accountId, id);
}

export function setEnabled(db: Db, accountId: string, id: string, enabled: boolean): Promise<Automation> {
  return update(db, accountId, id, { enabled });
}

/** Deletes the automation with its runs: nothing more is sent for it. */
export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    // its runs first, in the run worker's order (see update), then the automation and, by cascade, the runs
    await runQueries.lockRunsOf(trx, accountId, id);
    const row = await queries.deleteAutomation(trx, accountId, id);
    if (!row) throw new NotFound(NOT_FOUND);
  });
}

/** Cancels every run in progress (waiting or due); a run mid-step sees it when it next locks its row. */
async function cancelRuns(trx: Db, accountId: string, automationId: string, reason: string): Promise<number> {
  const entry = JSON.stringify([{ at: new Date().toISOString(), type: 'run', result: 'canceled', reason }]);
  const n = await runQueries.cancelActiveRuns(trx, accountId, automationId, entry);
  if (n > 0) await queries.addToCounter(trx, automationId, 'runs_canceled', n);
  return n;
}

type RunActivityRow = Awaited<ReturnType<typeof runQueries.runPage>>[number];

/** A run as activity shows it: where it stands (only while active) and what it did so far. */
function runView(r: RunActivityRow, steps: Step[]) {
  return {
    id: r.id,
    subscriber: { id: r.subscriber_id, email: r.email },
    status: r.status,
    current_step:
      r.status === 'active' && r.current_step !== null
        ? { path: r.current_step, type: stepAt(steps, r.current_step)?.type ?? null }
        : null,
    next_run_at: r.status === 'active' ? r.next_run_at : null,
    emails_sent: r.emails_sent,
    trigger_event_id: r.trigger_event_id,
    history: r.history,
    created_at: r.created_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at,
  };
}
export type RunActivity = ReturnType<typeof runView>;

/** get_automation_activity: runs newest first, each with its subscriber, position and history. */
export async function activity(db: Db, accountId: string, id: string, query: unknown): Promise<Page<RunActivity>> {
  const q = parseInput(ActivityQuery, query);
  const automation = await find(db, accountId, id);
  const rows = await runQueries.runPage(db, accountId, id, q.status, q.per_page, offsetOf(q));
  const total = await runQueries.countRuns(db, accountId, id, q.status);
  const steps = automation.steps as Step[];
  return pageOf(
    rows.map((r) => runView(r, steps)),
    q,
    total,
  );
}

/** The stats of one send_email step's emails: how many went out, and what their recipients did. */
export interface StepEmailStats extends automationEmails.EmailStats {
  /** the step's path ("0", "2.then.1"); a step edited away since keeps its old path and subject null */
  path: string;
  subject: string | null;
  sent: number;
  failed: number;
}

/** Per-email stats: one line per send_email step of the automation (in step order), then any removed since. */
export async function emailStatsBySteps(db: Db, accountId: string, id: string): Promise<StepEmailStats[]> {
  const automation = await find(db, accountId, id);
  const counts = new Map(
    (await queries.emailCountsByStep(db, accountId, id)).map(({ step, ...c }) => [step, c] as const),
  );
  const zero = { sent: 0, failed: 0, ...automationEmails.NO_EMAIL_STATS };
  const lines: StepEmailStats[] = [];
  const walk = (list: Step[], prefix: string) =>
    list.forEach((s, i) => {
      const path = prefix ? `${prefix}.${i}` : String(i);
      if (s.type === 'send_email') lines.push({ path, subject: s.subject, ...zero, ...counts.get(path) });
      if (s.type === 'condition') {
        walk(s.then, `${path}.then`);
        walk(s.else, `${path}.else`);
      }
    });
  walk(automation.steps as Step[], '');
  const known = new Set(lines.map((l) => l.path));
  for (const [path, c] of counts) if (!known.has(path)) lines.push({ path, subject: null, ...zero, ...c });
  return lines;
}
