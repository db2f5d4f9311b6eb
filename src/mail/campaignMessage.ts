// One campaign, ready to be turned into each recipient's message: the template compiled once, the sender
// resolved once (campaign → account defaults → MAIL_FROM), the stored links indexed for click tracking.
// Only drafts can change, so a campaign that is sending never changes under this cache.
import type { Config } from '../config.ts';
import type { Account } from '../db/schema.ts';
import type { CampaignRow } from '../db/schema/campaigns.ts';
import { bulkHeaders, resolveSender } from './headers.ts';
import { compileTemplate, renderMessage, type CompiledTemplate, type RenderSubscriber } from './render.ts';
import { openUrl, trackToken } from './tracking.ts';
import { newMessageId, type OutgoingMessage } from './transport.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

export interface PreparedCampaign {
  readonly id: string;
  readonly accountId: string;
  /** the message for one subscriber; throws only on a runtime template failure (e.g. the render time limit) */
  /** `messageId`: the one already recorded for this message (a new one when not given) */
  build(subscriber: RenderSubscriber, messageId?: string): OutgoingMessage;
}

export function prepare(
  config: Config,
  c: CampaignRow,
  account: Pick<Account, 'default_from_name' | 'default_from_email' | 'default_reply_to' | 'tracking_enabled'>,
  links: { idx: number; url: string }[],
): PreparedCampaign {
  const linkIndex = new Map(links.map((l) => [l.url, l.idx]));
  const tracked = account.tracking_enabled;
  // links and pixel are woven into the template here, once; each message only fills in its signed token
  const template: CompiledTemplate = compileTemplate(
    { subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text, preview_text: c.preview_text },
    tracked ? { linkIndex: (url) => linkIndex.get(url) } : undefined,
  );
  const sender = resolveSender(config, c, account);
  const campaign = { id: c.id, name: c.name };
  return {
    id: c.id,
    accountId: c.account_id,
    build(subscriber, messageId) {
      const unsubscribe = unsubscribeUrl(config, c.account_id, subscriber.id, { campaign_id: c.id });
      const token = tracked ? trackToken(config.secret, c.id, subscriber.id) : '';
      const tracking = tracked
        ? { click: `${config.publicUrl}/t/c/${token}`, open: openUrl(config, c.id, subscriber.id, token) }
        : undefined;
      const m = renderMessage(template, { subscriber, campaign, unsubscribeUrl: unsubscribe, tracking });
      return {
        accountId: c.account_id,
        from: sender.from,
        replyTo: sender.replyTo,
        to: subscriber.email,
        subject: m.subject,
        html: m.html,
        text: m.text,
        headers: bulkHeaders(config, unsubscribe, { 'X-Mailgrove-Campaign': c.id }),
        messageId: messageId ?? newMessageId(config),
      };
    },
  };
}
