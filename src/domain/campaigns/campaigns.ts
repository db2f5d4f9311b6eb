// Campaigns of one account: create, get, list, update, remove, schedule, cancel, preview.
// Owns the state machine draft → scheduled → sending → sent, with cancel (scheduled → draft,
// sending → cancelled). Templates are compiled on every save and schedule, so Liquid errors are
// Validation errors here and never failures mid-send. Starting a send freezes the audience (ledger.ts).
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { CampaignRow, CampaignStatus } from '../../db/schema/campaigns.ts';
import { bulkHeaders, resolveSender } from '../../mail/headers.ts';
import { NotFound, StateConflict, Validation, type FieldErrors } from '../errors.ts';
import { offsetOf, pageFields, pageOf, type Page } from '../paging.ts';
import { checkGroups, Email } from '../subscribers/subscribers.ts';
import { inTransaction } from '../transaction.ts';
import { parseInput } from '../validation.ts';
import * as ledger from './ledger.ts';
import { PREVIEW_LINK, previewSubscriber, renderPreview } from './previewing.ts';
import * as queries from './queries.ts';
import { contentColumns, type ContentInput } from './content.ts';
import * as campaignStats from './stats.ts';
import { compileChecked } from './templates.ts';

export const STATUSES = [
  'draft',
  'scheduled',
  'sending',
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
};

export const Name = z.string({ error: 'Name is required' }).trim().min(1, 'Name is required').max(255);
export const NewCampaign = z.object({ name: Name, ...Fields });
export type NewCampaign = z.input<typeof NewCampaign>;

export const CampaignUpdate = z.object({ name: Name.optional(), ...Fields });
export type CampaignUpdate = z.input<typeof CampaignUpdate>;

export const ScheduleInput = z.object({
  delivery: z.enum(['instant', 'scheduled'], { error: 'delivery must be one of: instant, scheduled' }),
  scheduled_at: z.iso
    .datetime({
      offset: true,
      error: 'scheduled_at must be an ISO 8601 date-time with a UTC offset, e.g. 2026-12-01T09:00:00+01:00',
    })
    .optional(),
});
export type ScheduleInput = z.input<typeof ScheduleInput>;

export const ListQuery = z.object({
  ...pageFields(),
  status: z.enum(STATUSES, { error: `status must be one of: ${STATUSES.join(', ')}` }).optional(),
});
export type ListQuery = z.input<typeof ListQuery>;

export type RecipientsQuery = campaignStats.RecipientsQuery;

export type Campaign = Omit<CampaignRow, 'account_id' | 'content_format' | 'content_source' | 'suppressed_count'> & {
  stats: campaignStats.Stats;
};

/** `content`: a source and format (the dashboard's editor) instead of content_html; see content.ts. */
export async function create(db: Db, accountId: string, input: NewCampaign, content?: ContentInput): Promise<Campaign> {
  const a = { ...parseInput(NewCampaign, input) };
  Object.assign(a, await contentColumns(a.content_html, content));
  checkTemplates(a);
  return inTransaction(db, async (trx) => {
    const group_ids = await checkGroups(trx, accountId, a.group_ids ?? []);
    const segment_ids = await ledger.checkSegments(trx, accountId, a.segment_ids ?? []);
    const row = await queries.insertCampaign(trx, {
      ...a,
      account_id: accountId,
      group_ids,
      segment_ids,
      delivery: null,
    });
    return present(row, campaignStats.EMPTY);
  });
}

export async function get(db: Db, accountId: string, id: string): Promise<Campaign> {
  const row = await find(db, accountId, id);
  return present(row, (await campaignStats.of(db, accountId, [id])).get(id) ?? campaignStats.EMPTY);
}

export async function list(db: Db, accountId: string, query: ListQuery): Promise<Page<Campaign>> {
  const q = parseInput(ListQuery, query);
  const { rows, total } = await queries.campaignPage(db, accountId, q.status, q.per_page, offsetOf(q));
  const stats = await campaignStats.of(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return pageOf(
    rows.map((r) => present(r, stats.get(r.id) ?? campaignStats.EMPTY)),
    q,
    total,
  );
}

export async function update(
  db: Db,
  accountId: string,
  id: string,
  input: CampaignUpdate,
  content?: ContentInput,
): Promise<Campaign> {
  const u = { ...parseInput(CampaignUpdate, input) };
  return inTransaction(db, async (trx) => {
    const before = await find(trx, accountId, id, true);
    if (before.status !== 'draft') throw new StateConflict('Only draft campaigns can be updated');
    Object.assign(u, await contentColumns(u.content_html, content, before));
    checkTemplates({ ...before, ...u });
    const group_ids = u.group_ids === undefined ? undefined : await checkGroups(trx, accountId, u.group_ids);
    const segment_ids =
      u.segment_ids === undefined ? undefined : await ledger.checkSegments(trx, accountId, u.segment_ids);
    const row = await queries.updateCampaign(trx, accountId, id, {
      ...u,
      ...(group_ids && { group_ids }),
      ...(segment_ids && { segment_ids }),
      updated_at: new Date(),
    });
    return present(row, campaignStats.EMPTY);
  });
}

export async function remove(db: Db, accountId: string, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    const row = await find(trx, accountId, id, true);
    // the ledger goes with the campaign; deleting mid-send would erase who already got it
    if (row.status === 'sending') throw new StateConflict('Campaign is sending and cannot be deleted; cancel it first');
    await queries.deleteCampaign(trx, accountId, id);
  });
}

/**
 * draft → scheduled (delivery "scheduled", scheduled_at in the future) or draft → sending ("instant":
 * the audience is frozen now). Requires subject, from, content and at least one group or segment.
 */
export async function schedule(
  db: Db,
  config: Config,
  accountId: string,
  id: string,
  input: ScheduleInput,
): Promise<Campaign> {
  const s = parseInput(ScheduleInput, input);
  const row = await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status === 'scheduled') throw new StateConflict('Campaign is already scheduled');
    if (c.status !== 'draft') throw new StateConflict('Only draft campaigns can be scheduled');
    const at = checkSchedule(s);
    checkReady(config, c);
    await checkGroups(trx, accountId, c.group_ids);
    await ledger.checkSegments(trx, accountId, c.segment_ids);
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

/** scheduled → draft; sending → cancelled (everyone still queued is skipped, in the same transaction). */
export async function cancel(db: Db, accountId: string, id: string): Promise<Campaign> {
  await inTransaction(db, async (trx) => {
    const c = await find(trx, accountId, id, true);
    if (c.status === 'scheduled') {
      await queries.setCampaign(trx, id, {
        status: 'draft',
        delivery: null,
        scheduled_at: null,
        updated_at: new Date(),
      });
    } else if (c.status === 'sending') {
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

export const PreviewInput = z.object({
  subscriber_id: z.guid('subscriber_id must be a UUID').optional(),
  email: z.string().trim().max(254).optional(),
});
export type PreviewInput = z.input<typeof PreviewInput>;

/** The campaign rendered for one subscriber (by id or email), as it would be sent, without tracking. */
export async function preview(db: Db, config: Config, accountId: string, id: string, input: PreviewInput) {
  const p = parseInput(PreviewInput, input);
  const c = await find(db, accountId, id);
  const subscriber = await previewSubscriber(db, accountId, p);
  const message = renderPreview(
    { subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text, preview_text: c.preview_text },
    subscriber,
    { id: c.id, name: c.name },
  );
  const account = await queries.account(db, accountId);
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

// content_format and content_source are the dashboard editor's, suppressed_count the report's: the REST and
// MCP campaign keeps its fields
function present(row: CampaignRow, stats: campaignStats.Stats): Campaign {
  const { account_id: _a, content_format: _f, content_source: _s, suppressed_count: _n, ...rest } = row;
  return { ...rest, stats };
}

function checkTemplates(c: {
  subject?: string | null;
  content_html?: string | null;
  content_text?: string | null;
}): void {
  if (!c.subject && !c.content_html && !c.content_text) return;
  compileChecked({ subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text });
}

function checkSchedule(s: z.output<typeof ScheduleInput>): Date | undefined {
  if (s.delivery === 'instant') return undefined;
  if (!s.scheduled_at) throw invalid('scheduled_at', 'scheduled_at is required when delivery is scheduled');
  const at = new Date(s.scheduled_at);
  if (at.getTime() <= Date.now()) throw invalid('scheduled_at', 'scheduled_at must be in the future');
  return at;
}

/** A one-field Validation whose message names the field, like parseInput's ("scheduled_at: …"). */
function invalid(field: string, message: string): Validation {
  return new Validation({ [field]: [message] }, `${field}: ${message}`);
}

/** What a campaign needs before it can go out: subject, a sender, content, an audience; valid Liquid. */
function checkReady(config: Config, c: CampaignRow): void {
  const fields: FieldErrors = {};
  if (!c.subject?.trim()) fields.subject = ['Subject is required before the campaign can be scheduled'];
  if (!c.from_email && !config.MAIL_FROM)
    fields.from_email = ['A sender (from_email) is required before the campaign can be scheduled'];
  if (!c.content_html?.trim())
    fields.content_html = ['Content (content_html) is required before the campaign can be scheduled'];
  if (c.group_ids.length === 0 && c.segment_ids.length === 0)
    fields.group_ids = ['At least one group or segment is required'];
  const first = Object.entries(fields)[0];
  if (first) throw new Validation(fields, `${first[0]}: ${first[1][0]}`);
  checkTemplates(c);
}

/**
 * The scheduler's step: starts every scheduled campaign whose time has come, each in its own transaction
 * (SKIP LOCKED: two instances never start the same one). Returns the ids started.
 */
export async function startDue(db: Db, secret: string, limit = 10): Promise<string[]> {
  const started: string[] = [];
  for (let i = 0; i < limit; i++) {
    const id = await inTransaction(db, async (trx) => {
      const c = await queries.nextDue(trx);
      if (!c) return undefined;
      await ledger.start(trx, c, 'scheduled', secret);
      return c.id;
    });
    if (!id) break;
    started.push(id);
  }
  return started;
}

/** get_campaign_subscribers: the campaign's ledger rows with their subscribers, filtered and paged. */
export async function recipients(
  db: Db,
  accountId: string,
  id: string,
  query: RecipientsQuery,
): Promise<Page<campaignStats.Recipient>> {
  await find(db, accountId, id);
  return campaignStats.recipients(db, accountId, id, query);
}
