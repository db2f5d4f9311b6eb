// What the campaign editor does beyond create and update: fill in the account's sender defaults, take
// content as a source (HTML or MJML), duplicate a campaign, render unsaved content, send a test. The
// state rules stay in campaigns.ts; every function here calls through it.
import { z } from 'zod';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { feedbackId, listId, mailFromAddress, resolveSender } from '../../mail/headers.ts';
import { newMessageId, type MailTransport } from '../../mail/transport.ts';
import { verpAddress } from '../../mail/verp.ts';
import { Validation } from '../errors.ts';
import { returnPathDomainFor } from '../feedback/returnPath.ts';
import { Email } from '../subscribers/subscribers.ts';
import { senderIdentity } from '../sending/identity.ts';
import { parseInput } from '../validation.ts';
import * as campaigns from './campaigns.ts';
import { asSourceError, ContentFields, sourceText, toHtml } from './content.ts';
import { previewSubscriber, renderPreview, subscriberOrStandIn } from './previewing.ts';
import * as queries from './queries.ts';
import { audienceNames } from './reportQueries.ts';

export const NewDraft = campaigns.NewCampaign.omit({ content_html: true }).extend(ContentFields);
export type NewDraft = z.input<typeof NewDraft>;
export const DraftUpdate = campaigns.CampaignUpdate.omit({ content_html: true }).extend(ContentFields);
export type DraftUpdate = z.input<typeof DraftUpdate>;

/** A new draft; sender fields left out take the account's defaults, so the editor shows what will be sent. */
export async function create(db: Db, accountId: string, input: unknown): Promise<string> {
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

export async function update(db: Db, accountId: string, id: string, input: unknown): Promise<void> {
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
      track_opens: c.track_opens,
      track_clicks: c.track_clicks,
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
export async function render(db: Db, accountId: string, input: unknown) {
  const r = parseInput(RenderInput, input);
  const subscriber = await previewSubscriber(db, accountId, { subscriber_id: r.subscriber_id });
  const account = await queries.account(db, accountId);
  try {
    const html = (await toHtml(r.content_format ?? 'html', sourceText(r.content_source) ?? '')) ?? '';
    const {
      subject,
      html: out,
      text,
    } = await renderPreview(
      { subject: r.subject ?? '', html, preview_text: r.preview_text },
      subscriber,
      undefined,
      account,
    );
    return { subject, html: out, text };
  } catch (err) {
    throw asSourceError(err);
  }
}

export const BlocksRenderInput = z.object({
  document: z.union([z.string(), z.record(z.string(), z.unknown())], { error: 'document is required' }),
  subject: z.string().max(255).optional(),
  preview_text: z.string().max(255).nullable().optional(),
  subscriber_id: z.guid('subscriber_id must be a UUID').optional(),
});

/** The block editor's live preview: `{ html, text }` of an unsaved block document, Liquid filled for the subscriber (or a sample one). */
export async function renderBlocks(db: Db, accountId: string, input: unknown) {
  const r = parseInput(BlocksRenderInput, input);
  const { subject, html, text } = await render(db, accountId, {
    subject: r.subject,
    preview_text: r.preview_text,
    content_format: 'blocks',
    content_source: r.document,
    subscriber_id: r.subscriber_id,
  });
  return { subject, html, text };
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
  input: unknown,
): Promise<{ sent: number }> {
  const { emails } = parseInput(TestInput, input);
  const c = await campaigns.find(db, accountId, id);
  if (!c.content_html?.trim())
    throw Validation.field('content_html', 'Content (content_html) is required before a test can be sent');
  const account = await queries.account(db, accountId);
  const sender = resolveSender(config, c, account);
  // signed like the campaign will be, so a test shows what receivers will make of it
  const identity = await senderIdentity(db, config, accountId, sender.from);
  const { dkim, relayId } = identity;
  // a test's bounce comes home too: it names the account only (the address may be no subscriber)
  const returnPath = await returnPathDomainFor(db, config, accountId, mailFromAddress(sender.from), identity);
  const envelopeFrom = returnPath && verpAddress(config.secret, 'bounce', { kind: 'test', accountId }, returnPath);
  let sent = 0;
  for (const email of [...new Set(emails.map((e) => e.toLowerCase()))]) {
    const m = await renderPreview(
      { subject: c.subject ?? '', html: c.content_html, text: c.content_text, preview_text: c.preview_text },
      await subscriberOrStandIn(db, accountId, email),
      { id: c.id, name: c.name },
      account,
    );
    const result = await transport.send({
      accountId,
      from: sender.from,
      replyTo: sender.replyTo,
      to: email,
      subject: `[Test] ${m.subject}`,
      html: m.html,
      text: m.text,
      headers: {
        [TEST_HEADER]: 'true',
        'X-Mailgrove-Campaign': c.id,
        'List-Id': listId(config, accountId, dkim?.domainName),
        'Feedback-ID': feedbackId(config, c.id, accountId, 'test'),
      },
      messageId: newMessageId(config),
      ...(envelopeFrom && { envelopeFrom }),
      ...(dkim && { dkim }),
      ...(relayId && { relayId }),
    });
    if (result.ok) sent++;
  }
  return { sent };
}
