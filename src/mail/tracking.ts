// Open pixel and click redirect: /t/o/{token} and /t/c/{token}/{link}, for campaign and
// automation emails alike. The token is one HMAC-signed reference to the email it went out in, shared by
// the pixel and every link of the message (one signature per message instead of one per link). The link
// part is only an INDEX into the email's stored links (campaign_links, automation_links): the redirect
// target always comes from our own table, so a tampered index can at most name another link of the same
// email's link set — never an open redirect.
import type { Config } from '../config.ts';
import { bytesUuid, sign, uuidBytes, verify } from './signedToken.ts';

/** A campaign email: the (campaign, subscriber) pair names its ledger row. */
export interface CampaignTrack {
  campaign_id: string;
  subscriber_id: string;
}

/** An automation email: its automation_emails row, which names the automation, the run, the step and the subscriber. */
export interface AutomationTrack {
  automation_email_id: string;
}

export type TrackTarget = CampaignTrack | AutomationTrack;

const PURPOSE = 'track';
// campaign tokens are the bare two ids (32 bytes), as issued before automations were tracked; an
// automation token is a kind byte and one id (17 bytes), so the length alone already tells them apart
const AUTOMATION_KIND = 2;

export function trackToken(secret: string, campaignId: string, subscriberId: string): string {
  return sign(secret, PURPOSE, Buffer.concat([uuidBytes(campaignId), uuidBytes(subscriberId)]));
}

export function automationTrackToken(secret: string, automationEmailId: string): string {
  return sign(secret, PURPOSE, Buffer.concat([Buffer.from([AUTOMATION_KIND]), uuidBytes(automationEmailId)]));
}

/** The email a token was made for, or undefined when it is forged, truncated or of another purpose. */
export function readTrackToken(secret: string, token: string): TrackTarget | undefined {
  const p = verify(secret, PURPOSE, token);
  if (p?.length === 32)
    return { campaign_id: bytesUuid(p.subarray(0, 16)), subscriber_id: bytesUuid(p.subarray(16, 32)) };
  if (p?.length === 17 && p[0] === AUTOMATION_KIND) return { automation_email_id: bytesUuid(p.subarray(1)) };
  return undefined;
}

/** One message's pixel URL and click base (`{click}/{index}` is link `index`), from its token. */
export function trackingUrls(config: Config, token: string): { click: string; open: string } {
  return { click: `${config.publicUrl}/t/c/${token}`, open: `${config.publicUrl}/t/o/${token}` };
}

/** The open pixel's URL for one recipient of a campaign. */
export function openUrl(
  config: Config,
  campaignId: string,
  subscriberId: string,
  token = trackToken(config.secret, campaignId, subscriberId),
): string {
  return trackingUrls(config, token).open;
}

/** The redirect URL of stored link `link` for one recipient of a campaign. */
export function clickUrl(
  config: Config,
  campaignId: string,
  subscriberId: string,
  link: number,
  token = trackToken(config.secret, campaignId, subscriberId),
): string {
  return `${trackingUrls(config, token).click}/${link}`;
}

const HREF = /(<a\b[^>]*?\bhref\s*=\s*)(["'])(.*?)\2/gis;
const MAX_LINKS = 1000;

/**
 * The distinct trackable links of a template: literal http(s) hrefs of <a> tags, in order of appearance.
 * Links containing Liquid (personalised, or {{ unsubscribe_url }}) are left alone: their target differs
 * per subscriber, and a redirect may only ever point at a URL we stored.
 */
export function extractLinks(html: string): string[] {
  const seen = new Set<string>();
  for (const m of html.matchAll(HREF)) {
    const url = decodeAttr(m[3]!.trim());
    if (!/^https?:\/\//i.test(url) || url.includes('{{') || url.includes('{%')) continue;
    seen.add(url);
    if (seen.size >= MAX_LINKS) break;
  }
  return [...seen];
}

/** Replaces each <a href> of rendered HTML by rewrite(url) (which returns the url itself to keep it). */
export function rewriteHrefs(html: string, rewrite: (url: string) => string): string {
  return html.replace(HREF, (whole, head: string, quote: string, value: string) => {
    const url = decodeAttr(value.trim());
    const next = rewrite(url);
    return next === url ? whole : `${head}${quote}${encodeAttr(next)}${quote}`;
  });
}

function decodeAttr(v: string): string {
  return v.replace(/&amp;/g, '&').replace(/&#0*38;/g, '&');
}

function encodeAttr(v: string): string {
  return v.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

/** The transparent 1×1 GIF the open pixel answers with. */
export const PIXEL_GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
