// What the dashboard's outbox shows of a captured message's HTML. Looking at a message is not the
// recipient reading it: the open pixel, tracked clicks, unsubscribe and double opt-in confirmation links
// all act on the person when fetched, so none of them survives into the preview: such a link becomes '#'
// (a click does nothing) and such an image is dropped. The CSP of the HTML route already stops loads from
// the network; this stops clicks, which a sandboxed frame still follows.
import { rewriteHrefs } from '../../../mail/tracking.ts';

// the public routes a GET of which counts or changes something: /t/o open, /t/c click, /u unsubscribe,
// /f/confirm double opt-in
const ACTION_PATH = /^\/(t\/[oc]\/|u\/|f\/confirm\/)/i;
const IMG = /<img\b[^>]*?\bsrc\s*=\s*(["'])(.*?)\1[^>]*>/gis;

export function isActionUrl(url: string, publicUrl: string): boolean {
  let target: URL;
  let base: URL;
  try {
    target = new URL(url.trim(), publicUrl);
    base = new URL(publicUrl);
  } catch {
    return false;
  }
  if (target.origin !== base.origin) return false;
  const prefix = base.pathname.replace(/\/+$/, '');
  if (!target.pathname.startsWith(prefix)) return false;
  return ACTION_PATH.test(target.pathname.slice(prefix.length));
}

/** Shown where a message prints an action link as text ("or paste this link…"), so no one copies it. */
export const HIDDEN_LINK = '[link hidden in the preview]';

export function previewHtml(html: string, publicUrl: string): string {
  const withoutPixels = html.replace(IMG, (tag, _q, src: string) =>
    isActionUrl(src.replace(/&amp;/g, '&'), publicUrl) ? '' : tag,
  );
  const linksDefused = rewriteHrefs(withoutPixels, (url) => (isActionUrl(url, publicUrl) ? '#' : url));
  return hideActionUrls(linksDefused, publicUrl);
}

/** A message's text (or HTML whose hrefs are defused) with this server's action URLs written out hidden. */
export function hideActionUrls(text: string, publicUrl: string): string {
  return text.replace(urlsOf(publicUrl), (url) =>
    isActionUrl(url.replace(/&amp;/g, '&'), publicUrl) ? HIDDEN_LINK : url,
  );
}

/** Absolute URLs on this server written anywhere in a text. */
function urlsOf(publicUrl: string): RegExp {
  const origin = new URL(publicUrl).origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`${origin}[^\\s<>"']*`, 'gi');
}
