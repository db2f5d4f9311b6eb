// Open pixel and click redirect tokens (DESIGN §6): /t/o/{token} and /t/c/{token}, HMAC-signed.
// A click token carries the campaign, the subscriber and the INDEX of a link stored in campaign_links,
// never the URL itself: the redirect target always comes from our own table (no open redirect).
import type { Config } from '../config.ts';
import { bytesUuid, sign, uuidBytes, verify } from './signedToken.ts';

export interface OpenToken {
  campaign_id: string;
  subscriber_id: string;
}
export interface ClickToken extends OpenToken {
  link: number;
}

export function openUrl(config: Config, campaignId: string, subscriberId: string): string {
  return `${config.publicUrl}/t/o/${sign(config.secret, 'open', Buffer.concat([uuidBytes(campaignId), uuidBytes(subscriberId)]))}`;
}

export function clickUrl(config: Config, campaignId: string, subscriberId: string, link: number): string {
  const idx = Buffer.alloc(2);
  idx.writeUInt16BE(link);
  return `${config.publicUrl}/t/c/${sign(config.secret, 'click', Buffer.concat([uuidBytes(campaignId), uuidBytes(subscriberId), idx]))}`;
}

export function readOpenToken(secret: string, token: string): OpenToken | undefined {
  const p = verify(secret, 'open', token);
  if (!p || p.length !== 32) return undefined;
  return { campaign_id: bytesUuid(p.subarray(0, 16)), subscriber_id: bytesUuid(p.subarray(16, 32)) };
}

export function readClickToken(secret: string, token: string): ClickToken | undefined {
  const p = verify(secret, 'click', token);
  if (!p || p.length !== 34) return undefined;
  return { campaign_id: bytesUuid(p.subarray(0, 16)), subscriber_id: bytesUuid(p.subarray(16, 32)), link: p.readUInt16BE(32) };
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
