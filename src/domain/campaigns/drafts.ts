// What the campaign editor does beyond create and update: fill in the account's sender defaults, take
// content as a source (HTML or MJML), duplicate a campaign, render unsaved content, send a test. The
// state rules stay in campaigns.ts; every function here calls through it.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { resolveSender } from '../../mail/headers.ts';
import { newMessageId, type MailTransport } from '../../mail/transport.ts';
import { Validation } from '../errors.ts';
import { Email } from '../subscribers/subscribers.ts';
import { parseInput } from '../validation.ts';
import * as campaigns from './campaigns.ts';
import { asSourceError, ContentFields, toHtml } from './content.ts';
import { previewSubscriber, renderPreview, subscriberOrStandIn } from './previewing.ts';
import * as queries from './queries.ts';
import { audienceNames } from './reportQueries.ts';

export const NewDraft = campaigns.NewCampaign.omit({ content_html: true }).extend(ContentFields);
export type NewDraft = z.input<typeof NewDraft>;
export const DraftUpdate = campaigns.CampaignUpdate.omit({ content_html: true }).extend(ContentFields);
export type DraftUpdate = z.input<typeof DraftUpdate>;

/** A new draft; sender fields left out take the account's defaults, so the editor shows what will be sent. */
export async function create(db: Db, accountId: string, input: NewDraft): Promise<string> {
  const { content_format, content_source, ...fields } = parseInput(NewDraft, input);
  const account = await queries.account(db, accountId);
  const withDefaults = {
    ...fields,
    from_name: fields.from_name === undefined ? account.default_from_name : fields.from_name,
    from_email: fields.from_email === undefined ? account.default_from_email : fields.from_email,
    reply_to: fields.reply_to === undefined ? account.default_reply_to : fields.reply_to,
  };
  try {
    return (await campaigns.create(db, accountId, withDefaults, { content_format, content_source })).id;
  } catch (err) {
    throw asSourceError(err);
  }
}

export async function update(db: Db, accountId: string, id: string, input: DraftUpdate): Promise<void> {
  const { content_format, content_source, ...fields } = parseInput(DraftUpdate, input);
  try {
    await campaigns.update(db, accountId, id, fields, { content_format, content_source });
  } catch (err) {
    throw asSourceError(err);
  }
}

/** A new draft with the campaign's content and audience, named "Copy of …"; deleted groups and segments are left out. */
export async function duplicate(db: Db, accountId: string, id: string): Promise<campaigns.Campaign> {
  const c = await campaigns.find(db, accountId, id);
  const existing = await audienceNames(db, accountId, c.group_ids, c.segment_ids);
  return campaigns.create(
    db,
    accountId,
    {
      name: `Copy of ${c.name}`.slice(0, 255),
      subject: c.subject,
      preview_text: c.preview_text,
      from_name: c.from_name,
      from_email: c.from_email,
      reply_to: c.reply_to,
      content_text: c.content_text,
      group_ids: c.group_ids.filter((g) => existing.has(g)),
      segment_ids: c.segment_ids.filter((s) => existing.has(s)),
    },
    { content_format: c.content_format, content_source: c.content_source ?? c.content_html },
  );
}

export const RenderInput = z.object({
  subject: z.string().max(255).optional(),
  preview_text: z.string().max(255).nullable().optional(),
  ...ContentFields,
  subscriber_id: z.guid('subscriber_id must be a UUID').optional(),
});
export type RenderInput = z.input<typeof RenderInput>;

/** Unsaved editor content as a subscriber (or a sample one) would see it, without tracking; errors name content_source. */
export async function render(db: Db, accountId: string, input: RenderInput) {
  const r = parseInput(RenderInput, input);
  const subscriber = await previewSubscriber(db, accountId, { subscriber_id: r.subscriber_id });
  try {
    const html = (await toHtml(r.content_format ?? 'html', r.content_source ?? '')) ?? '';
    const {
      subject,
      html: out,
      text,
    } = renderPreview({ subject: r.subject ?? '', html, preview_text: r.preview_text }, subscriber);
    return { subject, html: out, text };
  } catch (err) {
    throw asSourceError(err);
  }
}

export const TestInput = z.object({
  emails: z
    .array(Email, { error: 'emails must be a list of 1 to 5 email addresses' })
    .min(1, 'emails must be a list of 1 to 5 email addresses')
    .max(5, 'emails must be a list of 1 to 5 email addresses'),
});
export type TestInput = z.input<typeof TestInput>;

export const TEST_HEADER = 'X-Mailgrove-Test';

/**
 * The campaign as it is now, sent to 1–5 addresses through the process's transport: "[Test] " before the
 * subject, an X-Mailgrove-Test header, no tracking and no working unsubscribe link. It touches neither the
 * ledger nor the stats. Addresses of subscribers see their own data; others a stand-in's.
 */
export async function sendTest(
  db: Db,
  config: Config,
  transport: MailTransport,
  accountId: string,
  id: string,
  input: TestInput,
): Promise<{ sent: number }> {
  const { emails } = parseInput(TestInput, input);
  const c = await campaigns.find(db, accountId, id);
  if (!c.content_html?.trim())
    throw Validation.field('content_html', 'Content (content_html) is required before a test can be sent');
  const sender = resolveSender(config, c, await queries.account(db, accountId));
  let sent = 0;
  for (const email of [...new Set(emails.map((e) => e.toLowerCase()))]) {
    const m = renderPreview(
      { subject: c.subject ?? '', html: c.content_html, text: c.content_text, preview_text: c.preview_text },
      await subscriberOrStandIn(db, accountId, email),
      { id: c.id, name: c.name },
    );
    const result = await transport.send({
      accountId,
      from: sender.from,
      replyTo: sender.replyTo,
      to: email,
      subject: `[Test] ${m.subject}`,
      html: m.html,
      text: m.text,
      headers: { [TEST_HEADER]: 'true', 'X-Mailgrove-Campaign': c.id },
      messageId: newMessageId(config),
    });
    if (result.ok) sent++;
  }
  return { sent };
}
