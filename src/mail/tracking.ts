// Open pixel and click redirect (DESIGN §6): /t/o/{token} and /t/c/{token}/{link}. The token is one
// HMAC-signed (campaign, subscriber) pair per recipient, shared by the pixel and every link of the message
// (one signature per message instead of one per link). The link part is only an INDEX into the campaign's
// stored links (campaign_links): the redirect target always comes from our own table, so a tampered index
// can at most name another link of the same campaign — never an open redirect.
import type { Config } from '../config.ts';
import { bytesUuid, sign, uuidBytes, verify } from './signedToken.ts';

export interface TrackToken {
  campaign_id: string;
  subscriber_id: string;
}

export function trackToken(secret: string, campaignId: string, subscriberId: string): string {
  return sign(secret, 'track', Buffer.concat([uuidBytes(campaignId), uuidBytes(subscriberId)]));
}

export function readTrackToken(secret: string, token: string): TrackToken | undefined {
  const p = verify(secret, 'track', token);
  if (!p || p.length !== 32) return undefined;
  return { campaign_id: bytesUuid(p.subarray(0, 16)), subscriber_id: bytesUuid(p.subarray(16, 32)) };
}

/** The open pixel's URL for one recipient. */
export function openUrl(config: Config, campaignId: string, subscriberId: string, token = trackToken(config.secret, campaignId, subscriberId)): string {
  return `${config.publicUrl}/t/o/${token}`;
}

/** The redirect URL of stored link `link` for one recipient. */
export function clickUrl(config: Config, campaignId: string, subscriberId: string, link: number, token = trackToken(config.secret, campaignId, subscriberId)): string {
  return `${config.publicUrl}/t/c/${token}/${link}`;
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
