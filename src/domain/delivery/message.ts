// The one message builder of bulk mail, campaign and automation emails alike: the template compiled once
// with its tracked links and pixel woven in, the sender resolved once (own fields → account defaults →
// MAIL_FROM), then per recipient only the unsubscribe link, the signed tracking token and the render.
// A campaign is prepared once per send (only drafts change, so a sending campaign never changes under
// this cache); an automation email once per message, since each step of each run is its own email.
import type { Config } from '../../config.ts';
import type { Account } from '../../db/schema.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import {
  bulkHeaders,
  feedbackId,
  listId,
  resolveSender,
  type FeedbackKind,
  type SenderFields,
} from '../../mail/headers.ts';
import { compileTemplate, renderMessage, type CompiledTemplate, type RenderSubscriber } from '../../mail/render.ts';
import { automationTrackToken, openUrl, trackToken, trackingUrls } from '../../mail/tracking.ts';
import { newMessageId, type OutgoingMessage } from '../../mail/transport.ts';
import { unsubscribeUrl, type UnsubscribeSource } from '../../mail/unsubscribe.ts';
import { emailDocument } from '../content/document.ts';
import { verpAddress, type VerpTarget } from '../../mail/verp.ts';
import { renderAccount } from '../accounts/profile.ts';
import type { SenderIdentity } from '../sending/identity.ts';

type AccountForMail = Pick<
  Account,
  'default_from_name' | 'default_from_email' | 'default_reply_to' | 'tracking_enabled'
> &
  Partial<Pick<Account, 'name' | 'postal_address'>>;

/** What an email tracks: campaigns say for themselves, automation emails follow their account's setting. */
interface Tracks {
  opens: boolean;
  clicks: boolean;
}

export interface PreparedCampaign {
  readonly id: string;
  readonly accountId: string;
  /**
   * The message for one subscriber, under `messageId` (the one already recorded for it; a new one when
   * not given). `rowId`, the recipient's ledger row, is what its VERP return path names (none without).
   * Throws only on a runtime template failure (e.g. the render time limit).
   */
  build(subscriber: RenderSubscriber, messageId?: string, rowId?: number): OutgoingMessage;
  /** an A/B test's variants, each prepared as its own campaign (by index); absent without a test */
  readonly variants?: readonly PreparedCampaign[];
}

/** What both kinds of email share: content, sender, links, and what they are sent on behalf of. */
interface Blueprint {
  accountId: string;
  content: { subject: string; html: string; text?: string | null; preview_text?: string | null };
  own: SenderFields;
  account: AccountForMail;
  tracks: Tracks;
  /** the stored trackable links, by URL → index in the click redirect */
  links: Map<string, number>;
  /** what the unsubscribe link and the bulk header name */
  source: UnsubscribeSource;
  header: Record<string, string>;
  campaign?: { id: string; name: string };
  /** where late bounces and mailto unsubscribes come home (returnPath.ts); none: the From address */
  returnPathDomain?: string;
  /** who it is sent as: the verified sending domain's key (sending/identity.ts), resolved once */
  identity: SenderIdentity;
  /** what the Feedback-ID names: the campaign or automation, and the kind */
  feedback: { id: string; kind: FeedbackKind };
}

type Build = (
  subscriber: RenderSubscriber,
  messageId: string,
  tracking: { click: string; open: string } | undefined,
  verp: VerpTarget | undefined,
) => OutgoingMessage;

/** The VERP envelope sender and mailto unsubscribe address of one email, when there is a return-path domain. */
function verpOf(config: Config, domain: string | undefined, target: VerpTarget | undefined) {
  if (!domain || !target) return {};
  return {
    envelopeFrom: verpAddress(config.secret, 'bounce', target, domain),
    unsubscribeMailbox:
      target.kind === 'campaign' || target.kind === 'automation'
        ? verpAddress(config.secret, 'unsubscribe', target, domain)
        : undefined,
  };
}

function blueprint(config: Config, b: Blueprint): Build {
  const tracked = b.tracks.opens || b.tracks.clicks;
  // links and pixel are woven into the template here, once; each message only fills in its signed token
  const template: CompiledTemplate = compileTemplate(b.content, {
    ...(b.tracks.clicks && { linkIndex: (url: string) => b.links.get(url) }),
    opens: b.tracks.opens,
  });
  const sender = resolveSender(config, b.own, b.account);
  const account = renderAccount(b.account);
  const header = {
    ...b.header,
    'List-Id': listId(config, b.accountId, b.identity.dkim?.domainName),
    'Feedback-ID': feedbackId(config, b.feedback.id, b.accountId, b.feedback.kind),
  };
  const { dkim, relayId } = b.identity;
  return (subscriber, messageId, tracking, target) => {
    const verp = verpOf(config, b.returnPathDomain, target);
    const unsubscribe = unsubscribeUrl(config, b.accountId, subscriber.id, b.source);
    const m = renderMessage(template, {
      subscriber,
      campaign: b.campaign,
      unsubscribeUrl: unsubscribe,
      tracking: tracked ? tracking : undefined,
      account,
    });
    return {
      accountId: b.accountId,
      from: sender.from,
      replyTo: sender.replyTo,
      to: subscriber.email,
      subject: m.subject,
      html: m.html,
      text: m.text,
      headers: bulkHeaders(config, unsubscribe, header, verp.unsubscribeMailbox),
      messageId,
      ...(verp.envelopeFrom && { envelopeFrom: verp.envelopeFrom }),
      ...(dkim && { dkim }),
      ...(relayId && { relayId }),
    };
  };
}

/** The From address a campaign or automation email will carry: what its identity is resolved for. */
export function fromAddressOf(config: Config, own: SenderFields, account: AccountForMail): string {
  return resolveSender(config, own, account).from;
}

/**
 * A campaign ready to be turned into each recipient's message (`links`: its stored link set; `identity`:
 * who it is sent as, from sending/identity.ts; none: as the instance).
 */
export function prepareCampaign(
  config: Config,
  c: CampaignRow,
  account: AccountForMail,
  links: { idx: number; url: string }[],
  identity: SenderIdentity = {},
  returnPathDomain?: string,
): PreparedCampaign {
  const build = blueprint(config, {
    accountId: c.account_id,
    content: {
      subject: c.subject ?? '',
      html: c.content_html ?? '',
      text: c.content_text,
      preview_text: c.preview_text,
    },
    own: c,
    account,
    tracks: { opens: c.track_opens, clicks: c.track_clicks },
    links: new Map(links.map((l) => [l.url, l.idx])),
    source: { campaign_id: c.id },
    header: { 'X-Mailgrove-Campaign': c.id },
    campaign: { id: c.id, name: c.name },
    returnPathDomain,
    identity,
    feedback: { id: c.id, kind: 'campaign' },
  });
  const tracked = c.track_opens || c.track_clicks;
  return {
    id: c.id,
    accountId: c.account_id,
    build(subscriber, messageId, rowId) {
      const token = tracked ? trackToken(config.secret, c.id, subscriber.id) : '';
      const tracking = tracked
        ? { click: `${config.publicUrl}/t/c/${token}`, open: openUrl(config, c.id, subscriber.id, token) }
        : undefined;
      const verp: VerpTarget | undefined = rowId === undefined ? undefined : { kind: 'campaign', rowId };
      return build(subscriber, messageId ?? newMessageId(config), tracking, verp);
    },
  };
}

/** One automation email: the step's content for one subscriber, its token naming the email's tracked row. */
export interface AutomationEmail {
  accountId: string;
  automationId: string;
  step: SenderFields & { subject: string; content_html: string };
  account: AccountForMail;
  subscriber: RenderSubscriber;
  /** automation_emails.id, what the tracking token names */
  emailId: string;
  /** the template's trackable links, in their stored order */
  links: string[];
  messageId: string;
  /** where late bounces and mailto unsubscribes come home (returnPath.ts); none: the From address */
  returnPathDomain?: string;
  /** who it is sent as (sending/identity.ts); none: as the instance */
  identity?: SenderIdentity;
}

export function buildAutomationEmail(config: Config, e: AutomationEmail): OutgoingMessage {
  const build = blueprint(config, {
    accountId: e.accountId,
    // a step written as an HTML fragment still goes out as a whole document (<html>, <body>)
    content: { subject: e.step.subject, html: emailDocument(e.step.content_html) },
    own: e.step,
    account: e.account,
    tracks: { opens: e.account.tracking_enabled, clicks: e.account.tracking_enabled },
    links: new Map(e.links.map((url, i) => [url, i])),
    source: { automation_id: e.automationId },
    header: { 'X-Mailgrove-Automation': e.automationId },
    returnPathDomain: e.returnPathDomain,
    identity: e.identity ?? {},
    feedback: { id: e.automationId, kind: 'automation' },
  });
  const tracking = e.account.tracking_enabled
    ? trackingUrls(config, automationTrackToken(config.secret, e.emailId))
    : undefined;
  return build(e.subscriber, e.messageId, tracking, { kind: 'automation', emailId: e.emailId });
}
