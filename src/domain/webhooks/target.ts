// Where a webhook may point and how one POST to it is made.
// http(s) only, no credentials (not even empty ones), no port 0; every address the host resolves to must
// be public unless ALLOW_PRIVATE_WEBHOOK_URLS (the rule of mail/publicHost.ts, which SMTP relays follow too;
// names resolved through the product's resolver, DNS_SERVERS).
// The check runs when a URL is saved and again inside the connection's own DNS lookup at delivery time,
// so a name that is re-pointed at 127.0.0.1 after it was saved (DNS rebinding) is still refused.
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import { isPrivateAddress, PrivateHost, publicAddresses } from '../../mail/publicHost.ts';
import { hasCredentials } from '../urlCredentials.ts';

const PRIVATE_URL = 'URL must not point to a private, loopback or link-local address';

/** The DNS servers names are resolved through (DNS_SERVERS); the system's when not given. */
type Dns = Pick<Config, 'DNS_SERVERS'>;
const SYSTEM_DNS: Dns = { DNS_SERVERS: '' };

/** The parsed URL, or what is wrong with it as written, before any address is looked at. */
function formRefusal(raw: string): { refusal: string } | { url: URL } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { refusal: 'URL must be a valid http(s) URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { refusal: 'URL must use http or https' };
  if (hasCredentials(raw)) return { refusal: 'URL must not contain credentials' };
  if (url.port === '0') return { refusal: 'URL must not use port 0' };
  return { url };
}

/** Why a URL may not be used, or null when it may. Resolves the host (DNS) unless private targets are allowed. */
export async function refusalOf(raw: string, allowPrivate: boolean, dns: Dns = SYSTEM_DNS): Promise<string | null> {
  const form = formRefusal(raw);
  if ('refusal' in form) return form.refusal;
  if (allowPrivate) return null;
  try {
    await publicAddresses(dns, hostOf(form.url), PRIVATE_URL);
  } catch (err) {
    return err instanceof PrivateHost ? PRIVATE_URL : 'URL host could not be resolved';
  }
  return null;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
}

/**
 * A dns.lookup for http.request that resolves through the product's resolver and refuses private
 * addresses (the delivery-time check). With private targets allowed, the request's own lookup is used.
 */
function guardedLookup(dns: Dns) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    publicAddresses(dns, hostname, PRIVATE_URL).then(
      (addresses) => {
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err) => callback(err),
    );
  };
}

export interface PostResult {
  ok: boolean;
  status_code: number | null;
  duration_ms: number;
  /** first 1 KB of the response body */
  response: string | null;
  error: string | null;
}

const SNIPPET_BYTES = 1024;

/** One POST; 2xx within timeoutMs is ok. Redirects are not followed (a 3xx is a failure). Never throws. */
export async function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'duration_ms' | 'ok'>): PostResult => ({
    ...r,
    ok: r.status_code !== null && r.status_code >= 200 && r.status_code < 300,
    duration_ms: Math.round(performance.now() - started),
  });
  const refusal = await refusalOfLiteral(url, opts.allowPrivate);
  if (refusal) return done({ status_code: null, response: null, error: refusal });
  return done(await attempt(url, body, headers, opts, started + opts.timeoutMs, true));
}

type Attempted = Omit<PostResult, 'duration_ms' | 'ok'>;
type PostOptions = { timeoutMs: number; allowPrivate: boolean; signal?: AbortSignal; dns?: Dns };

/** One try before the deadline: through the keep-alive agent when `pooled`, else on a connection of its own. */
function attempt(
  url: string,
  body: string,
  headers: Record<string, string>,
  opts: PostOptions,
  deadline: number,
  pooled: boolean,
): Promise<Attempted> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(!opts.allowPrivate && { lookup: guardedLookup(opts.dns ?? SYSTEM_DNS) as any }),
        signal: opts.signal,
        ...(!pooled && { agent: false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < SNIPPET_BYTES) chunks.push(chunk.subarray(0, SNIPPET_BYTES - size));
          size += chunk.length;
          // the status is what counts; don't wait for a large body
          if (size >= SNIPPET_BYTES) res.destroy();
        });
        const finish = () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8').replace(/\0/g, '');
          resolve({ status_code: res.statusCode ?? null, response: text || null, error: null });
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`Timed out after ${opts.timeoutMs} ms`)),
      Math.max(0, deadline - performance.now()),
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // a kept-alive connection the receiver closed while it sat idle fails the moment it is used, as a reset
      // before any answer: the POST goes once more at once, on a connection of its own (a failed delivery
      // is posted again later anyway, and a receiver tells deliveries apart by their id)
      if (pooled && req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
        return resolve(attempt(url, body, headers, opts, deadline, false));
      resolve({ status_code: null, response: null, error: err.message || err.code || 'Request failed' });
    });
    req.end(body);
  });
}

/** IP-literal hosts never reach the lookup hook, so they are checked here, with the rest of the URL's form. */
async function refusalOfLiteral(raw: string, allowPrivate: boolean): Promise<string | null> {
  const form = formRefusal(raw);
  if ('refusal' in form) return form.refusal;
  const host = hostOf(form.url);
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) return PRIVATE_URL;
  return null;
}
