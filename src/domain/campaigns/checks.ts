// The checks a campaign passes before it goes out: who it claims to be from (a verified, DKIM-aligned
// sending domain with a DMARC record), what the law asks of it (the sender's postal address, a working
// unsubscribe link), where its links lead (the instance's https PUBLIC_URL, no private addresses), and
// what filters and clients make of it (Gmail clips HTML above 102 KB; a subject, a preheader, a text part
// that says what the HTML says). The campaign is rendered as it would be sent, tracking included, for a
// sample subscriber, so the checks see the footer, the pixel and the real links.
//
// Each check has a level: "block" refuses scheduling and sending (422), "warn" only reports. SEND_CHECKS
// decides whether the checks marked blocking below block on this instance; an account can make more of
// them blocking (accounts.blocking_checks), never fewer.
import { isIP } from 'node:net';
import { sendChecksMode, type Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Account } from '../../db/schema.ts';
import type { CampaignRow } from '../../db/schema/campaigns.ts';
import { mailFromAddress, resolveSender } from '../../mail/headers.ts';
import { compileTemplate, escapeHtml, renderMessage, type RenderedMessage } from '../../mail/render.ts';
import { extractLinks, trackToken, trackingUrls } from '../../mail/tracking.ts';
import { unsubscribeUrl } from '../../mail/unsubscribe.ts';
import { addressLine, renderAccount, SEND_CHECK_IDS, type SendCheckId } from '../accounts/profile.ts';
import { NotFound, Unprocessable } from '../errors.ts';
import { sendingDomainStatus } from '../sending/status.ts';
import { isPrivateAddress } from '../../mail/publicHost.ts';
import * as queries from './queries.ts';
import { SAMPLE_SUBSCRIBER } from './templates.ts';

export type CheckLevel = 'block' | 'warn';

export interface Check {
  id: SendCheckId;
  /** what a failure does here: "block" refuses the send, "warn" only says so */
  level: CheckLevel;
  ok: boolean;
  message: string;
}

/** `ok`: no blocking check failed, so the campaign may be sent. */
export interface Checks {
  ok: boolean;
  checks: Check[];
}

/** Gmail shows "[Message clipped]" and hides the rest (the footer, the unsubscribe link) above this size. */
export const GMAIL_CLIP_BYTES = 102 * 1024;

/** Which checks block when SEND_CHECKS is block; the others only warn unless an account asks otherwise. */
const BLOCKS_BY_DEFAULT: Record<SendCheckId, boolean> = {
  from_domain: true,
  dmarc: false,
  postal_address: true,
  unsubscribe_link: true,
  public_url: true,
  private_links: true,
  html_size: false,
  subject: true,
  preview_text: false,
  text_part: false,
};

/** The checks that block on this instance whatever an account says (none when SEND_CHECKS is warn). */
export function instanceBlocking(config: Pick<Config, 'SEND_CHECKS' | 'SMTP_URL'>): SendCheckId[] {
  return sendChecksMode(config) === 'block' ? SEND_CHECK_IDS.filter((id) => BLOCKS_BY_DEFAULT[id]) : [];
}

type Outcome = { ok: boolean; message: string };
type Found = Record<SendCheckId, Outcome>;

/** The checks of one campaign of the account (GET /campaigns/{id}/checks, get_campaign). */
export async function ofCampaign(db: Db, config: Config, accountId: string, id: string): Promise<Checks> {
  const c = await queries.findCampaign(db, accountId, id);
  if (!c) throw new NotFound('Campaign not found');
  return run(db, config, c);
}

/** Throws Unprocessable (422) listing the failed checks when a blocking one failed. */
export function assertPassed(result: Checks): void {
  if (result.ok) return;
  const failed = result.checks.filter((x) => !x.ok);
  throw new Unprocessable(`Campaign failed the checks before sending: ${blockingFailures(result).join(', ')}`, {
    checks: failed,
  });
}

/** The ids of the blocking checks that failed. */
export function blockingFailures(result: Checks): SendCheckId[] {
  return result.checks.filter((x) => !x.ok && x.level === 'block').map((x) => x.id);
}

export async function run(db: Db, config: Config, c: CampaignRow): Promise<Checks> {
  const account = await queries.account(db, c.account_id);
  const found = await findings(db, config, c, account);
  const floor = instanceBlocking(config);
  const checks = SEND_CHECK_IDS.map((id): Check => {
    const blocks = floor.includes(id) || account.blocking_checks.includes(id);
    return { id, level: blocks ? 'block' : 'warn', ...found[id] };
  });
  return { ok: checks.every((x) => x.ok || x.level === 'warn'), checks };
}

async function findings(db: Db, config: Config, c: CampaignRow, account: Account): Promise<Found> {
  const from = mailFromAddress(resolveSender(config, c, account).from);
  const fromDomain = from.slice(from.lastIndexOf('@') + 1).toLowerCase();
  const domain = await sendingDomainStatus(db, c.account_id, from);
  const rendered = renderAsSent(config, c, account);
  const content = (f: (m: RenderedMessage & { unsubscribe: string }) => Outcome): Outcome =>
    'failure' in rendered ? { ok: false, message: `The content does not render: ${rendered.failure}` } : f(rendered);
  return {
    from_domain: fromDomainCheck(from, fromDomain, domain),
    dmarc: domain.dmarc
      ? { ok: true, message: `${domain.domain} publishes a DMARC record` }
      : {
          ok: false,
          message: `No DMARC record found for ${domain.domain ?? fromDomain}: Gmail and Yahoo require one of bulk senders`,
        },
    postal_address: content((m) => postalAddressCheck(account, m)),
    unsubscribe_link: content((m) =>
      m.html.includes(escapeHtml(m.unsubscribe)) || m.html.includes(m.unsubscribe)
        ? { ok: true, message: 'The email links to its unsubscribe page' }
        : { ok: false, message: 'The email has no working unsubscribe link: use {{ unsubscribe_url }} in a link' },
    ),
    public_url: publicUrlCheck(config.publicUrl),
    // tracked links appear as redirects in the message: their targets are the links the template holds
    private_links: content((m) => privateLinksCheck(config.publicUrl, m.html, extractLinks(c.content_html ?? ''))),
    html_size: content((m) => {
      const kb = (Buffer.byteLength(m.html) / 1024).toFixed(1);
      return Buffer.byteLength(m.html) < GMAIL_CLIP_BYTES
        ? { ok: true, message: `The HTML is ${kb} KB, under the 102 KB Gmail clips at` }
        : { ok: false, message: `The HTML is ${kb} KB: Gmail clips above 102 KB and hides the rest, footer included` };
    }),
    subject: c.subject?.trim()
      ? { ok: true, message: 'The campaign has a subject' }
      : { ok: false, message: 'The campaign has no subject' },
    preview_text: c.preview_text?.trim()
      ? { ok: true, message: 'The campaign has preview text' }
      : { ok: false, message: 'No preview text: clients show the first words of the body after the subject instead' },
    text_part: content((m) => textPartCheck(c, account, m)),
  };
}

/** The campaign as its first recipient would get it: tracking as the campaign says, the real footer and links. */
function renderAsSent(
  config: Config,
  c: CampaignRow,
  account: Account,
): (RenderedMessage & { unsubscribe: string }) | { failure: string } {
  const links = new Map(extractLinks(c.content_html ?? '').map((url, i) => [url, i]));
  const sample = SAMPLE_SUBSCRIBER;
  try {
    const template = compileTemplate(
      { subject: c.subject ?? '', html: c.content_html ?? '', text: c.content_text, preview_text: c.preview_text },
      { ...(c.track_clicks && { linkIndex: (url: string) => links.get(url) }), opens: c.track_opens },
    );
    const unsubscribe = unsubscribeUrl(config, c.account_id, sample.id, { campaign_id: c.id });
    const m = renderMessage(template, {
      subscriber: sample,
      campaign: { id: c.id, name: c.name },
      unsubscribeUrl: unsubscribe,
      tracking: trackingUrls(config, trackToken(config.secret, c.id, sample.id)),
      account: renderAccount(account),
    });
    return { ...m, unsubscribe };
  } catch (err) {
    return { failure: (err as Error).message };
  }
}

function fromDomainCheck(
  from: string,
  fromDomain: string,
  d: { domain: string | null; verified: boolean; dkimAligned: boolean },
): Outcome {
  if (!d.domain)
    return {
      ok: false,
      message: `${from} is not on a sending domain of this account: add ${fromDomain} and verify its DNS records`,
    };
  if (!d.verified)
    return { ok: false, message: `${d.domain} is not verified yet: publish its DNS records and verify it` };
  if (!d.dkimAligned)
    return { ok: false, message: `Mail from ${from} would not carry a DKIM signature aligned with ${fromDomain}` };
  return { ok: true, message: `${d.domain} is verified and signs mail from ${from} with an aligned DKIM signature` };
}

function postalAddressCheck(account: Account, m: RenderedMessage): Outcome {
  const line = addressLine(account.postal_address);
  if (!line)
    return {
      ok: false,
      message: 'The account has no postal address: every commercial email must show one (account settings)',
    };
  if (!m.html.includes(escapeHtml(line)) && !m.html.includes(line))
    return {
      ok: false,
      message: 'The email does not show the postal address: add {{ account.postal_address }} to its footer',
    };
  return { ok: true, message: 'The email shows the postal address' };
}

function publicUrlCheck(publicUrl: string): Outcome {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return { ok: false, message: `PUBLIC_URL ${publicUrl} is not a URL` };
  }
  if (isPrivateHost(url.hostname))
    return {
      ok: false,
      message: `Unsubscribe, tracking and pixel links would point at ${url.host}, a private address: set PUBLIC_URL`,
    };
  if (url.protocol !== 'https:')
    return {
      ok: false,
      message: `Unsubscribe, tracking and pixel links would use ${url.protocol}: PUBLIC_URL must be https`,
    };
  return { ok: true, message: `Unsubscribe, tracking and pixel links point at ${url.origin}` };
}

// href, src and background attributes, and CSS url(): every address the message makes a client fetch or open;
// bounded lengths, so a megabyte of unclosed quotes costs one pass, not one per quote
const REFERENCE =
  /\b(?:href|src|background)\s*=\s*(?:"([^"]{0,2048})"|'([^']{0,2048})')|url\(\s*['"]?([^'")]{0,2048})/gi;

function privateLinksCheck(publicUrl: string, html: string, redirected: string[]): Outcome {
  const hosts = new Set<string>();
  const references = [...html.matchAll(REFERENCE)].map((m) =>
    (m[1] ?? m[2] ?? m[3] ?? '').replace(/&amp;/g, '&').trim(),
  );
  for (const raw of [...references, ...redirected]) {
    if (!/^https?:\/\//i.test(raw) || raw.startsWith(publicUrl)) continue; // our own links: the public_url check
    let host: string;
    try {
      host = new URL(raw).hostname;
    } catch {
      continue;
    }
    if (isPrivateHost(host)) hosts.add(host);
  }
  if (hosts.size === 0) return { ok: true, message: 'No link points at a private address' };
  return {
    ok: false,
    message: `Links point at private addresses recipients cannot reach: ${[...hosts].slice(0, 5).join(', ')}`,
  };
}

// names that only ever mean a machine on the sender's own network
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa', '.localdomain'];

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) return isPrivateAddress(host);
  if (host === 'localhost' || !host.includes('.')) return true;
  return PRIVATE_SUFFIXES.some((s) => host.endsWith(s));
}

const WORD = /\p{L}{2,}/gu;

/** A text part with words of its own, which says about as much as the HTML does. */
function textPartCheck(c: CampaignRow, account: Account, m: RenderedMessage & { unsubscribe: string }): Outcome {
  const footer = new Set([account.name, addressLine(account.postal_address), '--'].filter(Boolean));
  const body = m.text
    .split('\n')
    .filter((l) => !footer.has(l.trim()) && !l.includes(m.unsubscribe))
    .join('\n')
    .replace(/https?:\/\/\S+/g, '');
  const words = body.match(WORD)?.length ?? 0;
  if (words < 5)
    return { ok: false, message: `The text part has ${words} words: mail without readable text looks like spam` };
  if (c.content_text?.trim()) {
    const htmlWords = visibleWords(c.content_html ?? '');
    if (htmlWords > 0 && words * 3 < htmlWords)
      return {
        ok: false,
        message: `The text part has ${words} words, the HTML ${htmlWords}: write a text version that says what the HTML says, or leave it empty to derive it`,
      };
  }
  return { ok: true, message: `The text part has ${words} words` };
}

/** Words of the HTML's visible text, Liquid left as written. */
function visibleWords(html: string): number {
  // each pattern stops at the next '<' or brace, so hostile markup costs one pass
  const visible = html
    .replace(/<(script|style)\b[^<]*<\/\1\s*>/gi, ' ')
    .replace(/<[^<>]*>/g, ' ')
    .replace(/\{\{[^{}]*\}\}|\{%[^{}]*%\}/g, ' ');
  return visible.match(WORD)?.length ?? 0;
}
