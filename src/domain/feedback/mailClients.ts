// Which email client and device a person opened or clicked from, read from the user agent of the pixel
// load or the click: the one rule, used by engagement.ts for human opens and clicks of campaign emails.
//
// Only the two results are kept (on the recipient's ledger row), never the user agent itself: it is a
// fingerprint of the reader's machine, and the report needs no more than "Apple Mail, mobile".
//
// ua-parser-js names browsers, operating systems and devices but not mail clients, so the clients that say
// who they are come first, from their own tokens:
// - Outlook for Windows and Mac: "Microsoft Outlook", "ms-office" or "MSOffice" (its Word renderer);
//   Outlook for iOS and Android: "Outlook-iOS", "Outlook-Android";
// - Thunderbird: "Thunderbird/";
// - Gmail and Yahoo Mail load images through their own proxies when the reader opens the message
//   ("GoogleImageProxy", "YahooMailProxy"), which hide the device;
// - Apple Mail: WebKit on iOS or macOS without a browser's token (Safari sends "Version/… Safari/…").
// Anything else is a web browser ("Web browser: Chrome") when ua-parser-js names one, else "Other".
// Parsing costs ~100 µs a user agent on the development machine, and an email's readers use few distinct
// ones, so results are kept in a small LRU map keyed by the user agent.
import { UAParser } from 'ua-parser-js';

export type Device = 'desktop' | 'mobile' | 'tablet' | 'unknown';
export interface MailClient {
  client: string;
  device: Device;
}

/** ua-parser-js reads no further either */
const UA_MAX = 500;
const CACHE_SIZE = 1000;
const NAME_MAX = 60;

const OWN_TOKENS: [RegExp, string][] = [
  [/Outlook-(iOS|Android)|Microsoft Outlook|ms-office|MSOffice/i, 'Outlook'],
  [/Thunderbird\//i, 'Thunderbird'],
  [/GoogleImageProxy/i, 'Gmail'],
  [/YahooMailProxy/i, 'Yahoo Mail'],
];
const PROXIES = new Set(['Gmail', 'Yahoo Mail']);
const APPLE_OS = new Set(['iOS', 'Mac OS']);

const cache = new Map<string, MailClient>();

/** The client and device of a user agent; "Other" / "unknown" when there is none or nothing is recognised. */
export function mailClientOf(userAgent: string | undefined): MailClient {
  const ua = (userAgent ?? '').trim().slice(0, UA_MAX);
  const hit = cache.get(ua);
  if (hit) {
    // most recently used last: Map keeps insertion order
    cache.delete(ua);
    cache.set(ua, hit);
    return hit;
  }
  const found = classify(ua);
  cache.set(ua, found);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return found;
}

function classify(ua: string): MailClient {
  if (ua === '') return { client: 'Other', device: 'unknown' };
  const r = new UAParser(ua).getResult();
  const own = OWN_TOKENS.find(([re]) => re.test(ua))?.[1];
  const device = deviceOf(r, own);
  if (own) return { client: own, device };
  if (r.browser.name === 'WebKit' && APPLE_OS.has(r.os.name ?? '')) return { client: 'Apple Mail', device };
  if (r.browser.name) return { client: `Web browser: ${clean(r.browser.name)}`, device };
  return { client: 'Other', device };
}

function deviceOf(r: UAParser.IResult, own: string | undefined): Device {
  if (own && PROXIES.has(own)) return 'unknown';
  if (r.device.type === 'mobile' || r.device.type === 'tablet') return r.device.type;
  // a desktop UA names no device type; one with no OS or browser at all is nothing we can tell
  return r.os.name || r.browser.name || own ? 'desktop' : 'unknown';
}

/** Some browser names are words of the user agent itself: kept short and plain. */
function clean(name: string): string {
  return name.replace(/[^\p{L}\p{N} ._-]/gu, '').slice(0, NAME_MAX) || 'Other';
}
