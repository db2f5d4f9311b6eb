// Campaigns of one account: create, get, list, update, remove, schedule, cancel, preview.
// Owns the state machine draft → scheduled → sending → sent, with cancel (scheduled → draft,
// sending or paused → cancelled) and pause (sending ⇄ paused). Templates are compiled on every save and schedule, so Liquid errors are
// Validation errors here and never failures mid-send. Starting a send freezes the audience (ledger.ts).
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { CampaignRow, CampaignStatus } from '../../db/schema/campaigns.ts';
import { bulkHeaders, resolveSender } from '../../mail/headers.ts';
import * as contentTemplates from '../content/templates.ts';
import { Conflict, NotFound, StateConflict, Validation, type FieldErrors } from '../errors.ts';
import { offsetOf, pageFields, pageOf, type Page } from '../paging.ts';
import { checkGroups, Email } from '../subscribers/subscribers.ts';
import { recordEvent } from '../events/log.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as abTests from './abTests.ts';
import * as ledger from './ledger.ts';
import * as localTime from './localTime.ts';
import { PREVIEW_LINK, previewSubscriber, renderPreview } from './previewing.ts';
import * as queries from './queries.ts';
import * as sendChecks from './checks.ts';
import { ContentFields, contentColumns, type ContentFormat, type ContentInput } from './content.ts';
import * as campaignStats from './stats.ts';
import { checkInPool } from './templates.ts';

export const STATUSES = [
  'draft',
  'scheduled',
  'sending',
  'paused',
  'sent',
  'cancelled',
] as const satisfies readonly CampaignStatus[];
export const NOT_FOUND = 'Campaign not found';

const Text = (max: number) => z.string().trim().max(max).nullable();
const Ids = (what: string) => z.array(z.guid(`Each ${what} id must be a UUID`)).max(100);

/** The editable fields of a campaign (shared by create, update and the MCP tool schemas). */
export const Fields = {
  subject: Text(255).optional(),
  preview_text: Text(255).optional(),
  from_name: Text(200).optional(),
  from_email: Email.nullable().optional(),
  reply_to: Email.nullable().optional(),
  content_html: z.string().max(1_000_000).nullable().optional(),
  content_text: z.string().max(1_000_000).nullable().optional(),
  group_ids: Ids('group').optional(),
  segment_ids: Ids('segment').optional(),
  // what the author wrote, instead of content_html: HTML, MJML or a block document (content.ts)
  ...ContentFields,
  /** variants sent to a test share before the winner goes to the rest (abTests.ts); null removes the test */
  ab_test: abTests.AbTestInput.nullable().optional(),
  /** the open pixel and tracked links; a new campaign takes its account's tracking setting */
  track_opens: z.boolean({ error: 'track_opens must be true or false' }).optional(),
  track_clicks: z.boolean({ error: 'track_clicks must be true or false' }).optional(),
};

export const Name = z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(255);
export const NewCampaign = z.object({
  name: Name,
  ...Fields,
  /** a starter's or a saved template's id: the new campaign starts with its block document */
  template_id: z.string().trim().min(1).max(64).optional(),
});
export type NewCampaign = z.input<typeof NewCampaign>;

export const CampaignUpdate = z.object({
  name: Name.optional(),
  ...Fields,
  /** the updated_at the editor last loaded: a save after someone else's is refused with 409 */
  expected_updated_at: z.iso
    .datetime({ offset: true, error: 'expected_updated_at must be an ISO 8601 date-time' })
    .optional(),
});
export type CampaignUpdate = z.input<typeof CampaignUpdate>;

export const ScheduleInput = z.object({
  delivery: z.enum(['instant', 'scheduled', 'local_time'], {
    error: 'delivery must be one of: instant, scheduled, local_time',
  }),
  scheduled_at: z.iso
    .datetime({
      offset: true,
      error: 'scheduled_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T09:00:00+01:00',
    })
    .optional(),
  ...localTime.ScheduleFields,
});
export type ScheduleInput = z.input<typeof ScheduleInput>;

export const ListQuery = z.object({
  ...pageFields(),
  status: z.enum(STATUSES, { error: `status must be one of: ${STATUSES.join(', ')}` }).optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

export type RecipientsQuery = campaignStats.RecipientsQuery;

type Internal =
  | 'account_id'
  | 'suppressed_count'
  | 'ab_test'
  | 'ab_winner'
  | 'ab_decide_at'
  | 'local_time'
  | 'local_date'
  | 'local_time_past'
  | 'paused_at'
  | 'resend_of';
export type Campaign = Omit<CampaignRow, Internal> & {
  stats: campaignStats.Stats;
  /** present when the campaign tests variants */
  ab_test?: abTests.AbTestView;
  /** present for local-time delivery */
  local_time?: localTime.LocalTimeView;
  /** present while paused */
  paused_at?: Date;
  /** present on a resend to another campaign's non-openers */
  resend_of?: string;
};

/** `content`: a source and format (the dashboard's editor) instead of content_html; see content.ts. */
export async function create(db: Db, accountId: string, input: unknown, content?: ContentInput): Promise<Campaign> {
  const { template_id, content_format, content_source, ab_test, ...a } = parseInput(NewCampaign, input);
  let written = content ?? { content_format, content_source };
  if (template_id !== undefined && written.content_source == null && a.content_html == null)
    written = {
      content_format: 'blocks',
      content_source: await contentTemplates.documentOf(db, accountId, template_id),
    };
  Object.assign(a, await contentColumns(a.content_html, written));
  await checkTemplates(a);
  const abColumn = ab_test ? await abTests.toColumn(ab_test) : null;
  return inTransaction(db, async (trx) => {
    const group_ids = await checkGroups(trx, accountId, a.group_ids ?? []);
    const segment_ids = await ledger.checkSegments(trx, accountId, a.segment_ids ?? []);
    const tracks =
      a.track_opens === undefined || a.track_clicks === undefined
        ? (await queries.account(trx, accountId)).tracking_enabled
        : undefined;
    const row = await queries.insertCampaign(trx, {
      ...a,
      account_id: accountId,
      group_ids,
      segment_ids,
      delivery: null,
      ab_test: abColumn,
      track_opens: a.track_opens ?? tracks,
      track_clicks: a.track_clicks ?? tracks,
    });
    return present(trx, row, campaignStats.EMPTY);
  });
}

export async function get(db: Db, accountId: string, id: string): Promise<Campaign> {
  const row = await find(db, accountId, id);
  return present(db, row, (await campaignStats.of(db, accountId, [id])).get(id) ?? campaignStats.EMPTY);
}

export async function list(db: Db, accountId: string, query: unknown): Promise<Page<Campaign>> {
  const q = parseInput(ListQuery, query);
  const { rows, total } = await queries.campaignPage(db, accountId, q.status, q.per_page, offsetOf(q));
  const stats = await campaignStats.of(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return pageOf(await Promise.all(rows.map((r) => present(db, r, stats.get(r.id) ?? campaignStats.EMPTY))), q, total);
}

export async function update(
  db: Db,
  accountId: string,
  id: string,
  input: unknown,
  content?: ContentInput,
): Promise<Campaign> {
  const { expected_updated_at, content_format, content_source, ab_test, ...u } = parseInput(CampaignUpdate, input);
  const abColumn = ab_test ? await abTests.toColumn(ab_test) : ab_test;
  // the content work (MJML, the template check: render pool tasks of up to seconds) is done before the
  // transaction: on PGlite an open transaction holds the one connection every other request waits for
  const seen = await find(db, accountId, id);
  if (seen.status !== 'draft') throw new StateConflict('Only draft campaigns can be updated');
  Object.assign(u, await contentColumns(u.content_html, content ?? { content_format, content_source }, seen));
  await checkTemplates({ ...seen, ...u });
  return inTransaction(db, async (trx) => {
    const before = await find(trx, accountId, id, true);
    if (before.status !== 'draft') throw new StateConflict('Only draft campaigns can be updated');
    if (expected_updated_at !== undefined && Date.parse(expected_updated_at) !== before.updated_at.getTime())
      throw new Conflict('This draft was changed elsewhere since it was loaded; reload it to see the other changes');
    const group_ids = u.group_ids === undefined ? undefined : await checkGroups(trx, accountId, u.group_ids);
    const segment_ids =
      u.segment_ids === undefined ? undefined : await ledger.checkSegments(trx, accountId, u.segment_ids);
    const row = await queries.updateCampaign(trx, accountId, id, {
      ...u,
      ...(group_ids && { group_ids }),
      ...(segment_ids && { segment_ids }),
      ...(abColumn !== undefined && { ab_test: abColumn, ab_winner: null, ab_decide_at: null }),
      updated_at: new Date(),
    });
    return present(trx, row, campaignStats.EMPTY);
  });
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const row = await find(trx, accountId, id, true);
    // the ledger goes with the campaign; deleting mid-send would erase who already got it
    if (row.status === 'sending' || row.status === 'paused')
      throw new StateConflict(`Campaign is ${row.status} and cannot be deleted; cancel it first`);
    await queries.deleteCampaign(trx, accountId, id);
  });
}

/**
 * draft → scheduled (delivery "scheduled", scheduled_at in the future) or draft → sending ("instant":
 * the audience is frozen now). Requires subject, from, content and at least one group or segment, and
 * passing the blocking checks before a send (checks.ts: 422 listing the failures otherwise).
 */
export async function schedule(
  db: Db,
  config: Config,
  accountId: string,
  id: string,
  input: unknown,
): Promise<Campaign> {
  const s = parseInput(ScheduleInput, input);
  // its template checked in the render pool before the transaction (see update); a draft changed meanwhile
  // was checked by its own save
  const seen = await find(db, accountId, id);
  for (const v of seen.ab_test ? seen.ab_test.variants.map((_, i) => abTests.variantCampaign(seen, i)) : [seen])
    await checkTemplates(v);
  // the checks render the campaign: done before the transaction, which then holds the row as it was checked
  const checked = seen.status === 'draft' ? await sendChecks.run(db, config, seen) : undefined;
  const row = await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status === 'scheduled') throw new StateConflict('Campaign is already scheduled');
    if (c.status !== 'draft') throw new StateConflict('Only draft campaigns can be scheduled');
    if (!checked || c.updated_at.getTime() !== seen.updated_at.getTime())
      throw new StateConflict('Campaign changed while it was being checked; schedule it again');
    // before the checks of content and audience: no fix to those would make this schedule possible
    const local = s.delivery === 'local_time' ? localTime.scheduleColumns(c, s) : undefined;
    const at = checkSchedule(s);
    checkReady(config, c);
    await checkGroups(trx, accountId, c.group_ids);
    await ledger.checkSegments(trx, accountId, c.segment_ids);
    sendChecks.assertPassed(checked);
    if (local) {
      return queries.setCampaign(trx, id, {
        ...local,
        status: 'scheduled',
        updated_at: new Date(),
      });
    }
    if (s.delivery === 'scheduled') {
      return queries.setCampaign(trx, id, {
        status: 'scheduled',
        delivery: 'scheduled',
        scheduled_at: at!,
        updated_at: new Date(),
      });
    }
    return ledger.start(trx, c, 'instant', config.secret);
  });
  return get(db, accountId, row.id);
}

/** scheduled → draft; sending or paused → cancelled (everyone still queued is skipped, in the same transaction). */
export async function cancel(db: Db, accountId: string, id: string): Promise<Campaign> {
  await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status === 'scheduled') {
      await queries.setCampaign(trx, id, { ...UNSCHEDULED, updated_at: new Date() });
    } else if (c.status === 'sending' || c.status === 'paused') {
      await queries.setCampaign(trx, id, {
        status: 'cancelled',
        cancelled_at: new Date(),
        finished_at: new Date(),
        updated_at: new Date(),
      });
      await ledger.skipQueued(trx, id, 'Campaign was cancelled');
    } else {
      throw new StateConflict('Only scheduled or sending campaigns can be cancelled');
    }
  });
  return get(db, accountId, id);
}

/**
 * sending → paused: no lane of any instance hands out another of its messages (each re-reads the status
 * at least every 200 ms, and claims take only sending campaigns); what is already with the mail server
 * gets its outcome as usual, everyone else stays queued, so nothing is left interrupted.
 */
export async function pause(db: Db, accountId: string, id: string): Promise<Campaign> {
  await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status !== 'sending') throw new StateConflict('Only sending campaigns can be paused');
    await queries.setCampaign(trx, id, { status: 'paused', paused_at: new Date(), updated_at: new Date() });
  });
  return get(db, accountId, id);
}

/** paused → sending: the lanes claim the rows still queued, so each recipient gets it once. */
export async function resume(db: Db, accountId: string, id: string): Promise<Campaign> {
  await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status !== 'paused') throw new StateConflict('Only paused campaigns can be resumed');
    await queries.setCampaign(trx, id, { status: 'sending', paused_at: null, updated_at: new Date() });
  });
  return get(db, accountId, id);
}

export const PreviewInput = z.object({
  subscriber_id: z.guid('subscriber_id must be a UUID').optional(),
  email: z.string().trim().max(254).optional(),
});
export type PreviewInput = z.input<typeof PreviewInput>;

/** The campaign rendered for one subscriber (by id or email), as it would be sent, without tracking. */
export async function preview(db: Db, config: Config, accountId: string, id: string, input: unknown) {
  const p = parseInput(PreviewInput, input);
  const c = await find(db, accountId, id);
  const subscriber = await previewSubscriber(db, accountId, p);
  const account = await queries.account(db, accountId);
  const message = await renderPreview(
    { subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text, preview_text: c.preview_text },
    subscriber,
    { id: c.id, name: c.name },
    account,
  );
  const sender = resolveSender(config, c, account);
  return {
    ...message,
    from: sender.from,
    reply_to: sender.replyTo ?? null,
    to: subscriber.email,
    headers: bulkHeaders(config, PREVIEW_LINK),
  };
}

export async function find(db: Db, accountId: string, id: string, forUpdate = false): Promise<CampaignRow> {
  const row = await queries.findCampaign(db, accountId, id, forUpdate);
  if (!row) throw new NotFound(NOT_FOUND);
  return row;
}

// suppressed_count is the report's; content_format and content_source are shown beside the rendered
// content_html, so a REST or MCP client can read (and write back) a block document; an A/B test and a
// local-time delivery are shown as their views
async function present(db: Db, row: CampaignRow, stats: campaignStats.Stats): Promise<Campaign> {
  const {
    account_id: _a,
    suppressed_count: _n,
    ab_test: _t,
    ab_winner: _w,
    ab_decide_at: _d,
    local_time: _l,
    local_date: _ld,
    local_time_past: _lp,
    paused_at,
    resend_of,
    ...rest
  } = row;
  const ab = await abTests.view(db, row);
  const local = localTime.view(row);
  // each only where it applies, so an ordinary campaign keeps exactly its fields
  return {
    ...rest,
    content_source: rest.content_source ?? rest.content_html,
    stats,
    ...(ab && { ab_test: ab }),
    ...(local && { local_time: local }),
    ...(paused_at && { paused_at }),
    ...(resend_of && { resend_of }),
  };
}

export type { ContentFormat };

async function checkTemplates(c: {
  subject?: string | null;
  content_html?: string | null;
  content_text?: string | null;
}): Promise<void> {
  if (!c.subject && !c.content_html && !c.content_text) return;
  await checkInPool({ subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text });
}

function checkSchedule(s: z.output<typeof ScheduleInput>): Date | undefined {
  if (s.delivery === 'instant' || s.delivery === 'local_time') return undefined;
  if (!s.scheduled_at) throw invalid('scheduled_at', 'scheduled_at is required when delivery is scheduled');
  const at = new Date(s.scheduled_at);
  if (at.getTime() <= Date.now()) throw invalid('scheduled_at', 'scheduled_at must be in the future');
  return at;
}

/** A one-field Validation whose message names the field, like parseInput's ("scheduled_at: …"). */
function invalid(field: string, message: string): Validation {
  return new Validation({ [field]: [message] }, `${field}: ${message}`);
}

/** What a campaign needs before it can go out: subject, a sender, content, an audience (Liquid: checkTemplates). */
function checkReady(config: Config, c: CampaignRow): void {
  const fields: FieldErrors = {};
  // with an A/B test, each variant's own subject or content may stand in for the campaign's
  const sent = c.ab_test ? c.ab_test.variants.map((_, i) => abTests.variantCampaign(c, i)) : [c];
  if (sent.some((v) => !v.subject?.trim()))
    fields.subject = ['Subject is required before the campaign can be scheduled'];
  if (!c.from_email && !config.MAIL_FROM)
    fields.from_email = ['A sender (from_email) is required before the campaign can be scheduled'];
  if (sent.some((v) => !v.content_html?.trim()))
    fields.content_html = ['Content (content_html) is required before the campaign can be scheduled'];
  // a resend's audience is who did not open the campaign it follows up
  if (c.group_ids.length === 0 && c.segment_ids.length === 0 && !c.resend_of)
    fields.group_ids = ['At least one group or segment is required'];
  const first = Object.entries(fields)[0];
  if (first) throw new Validation(fields, `${first[0]}: ${first[1][0]}`);
}

/**
 * The scheduler's step: starts every scheduled campaign whose time has come, each in its own transaction
 * (SKIP LOCKED: two instances never start the same one). Each is checked again first (checks.ts), since
 * its domain, the account or the instance may have changed since it was scheduled: one that fails a
 * blocking check now does not go, it returns to draft with a campaign.refused event naming the failures
 * (GET /campaigns/{id}/checks shows them). The checks render the campaign before the transaction, which
 * then starts the row only if it is still the one checked (same updated_at). Returns the ids started.
 */
export async function startDue(db: Db, config: Config, limit = 10): Promise<string[]> {
  const started: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < limit; i++) {
    const due = await queries.peekDue(db, [...seen]);
    if (!due) break;
    seen.add(due.id);
    const checked = await sendChecks.run(db, config, due);
    const id = await inTransaction(db, async (trx) => {
      const c = await queries.lockDue(trx, due.id, due.updated_at);
      if (!c) return undefined; // started, changed or being started elsewhere meanwhile
      if (!checked.ok) {
        await queries.setCampaign(trx, c.id, { ...UNSCHEDULED, updated_at: new Date() });
        await recordEvent(trx, c.account_id, 'campaign.refused', {
          campaign: { id: c.id, name: c.name },
          reason: 'Failed the checks before sending when its time came',
          checks: checked.checks.filter((x) => !x.ok),
        });
        return undefined;
      }
      await ledger.start(trx, c, 'scheduled', config.secret);
      return c.id;
    });
    if (id) started.push(id);
  }
  return started;
}

/** What a scheduled campaign that goes back to draft forgets. */
const UNSCHEDULED = {
  status: 'draft',
  delivery: null,
  scheduled_at: null,
  local_time: null,
  local_date: null,
  local_time_past: null,
} as const;

/** get_campaign_subscribers: the campaign's ledger rows with their subscribers, filtered and paged. */
export async function recipients(
  db: Db,
  accountId: string,
  id: string,
  query: unknown,
): Promise<Page<campaignStats.Recipient>> {
  await find(db, accountId, id);
  // parsed there, after the campaign is found (its signature still names the input it expects)
  return campaignStats.recipients(db, accountId, id, query as RecipientsQuery);
}
