// Where a webhook may point and how one POST to it is made.
// http(s) only; every address the host resolves to must be public unless ALLOW_PRIVATE_WEBHOOK_URLS.
// The check runs when a URL is saved and again inside the connection's own DNS lookup at delivery time,
// so a name that is re-pointed at 127.0.0.1 after it was saved (DNS rebinding) is still refused.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP } from 'node:net';

/** Not routable on the public internet: loopback, private, link-local, unique-local, CGNAT, multicast, reserved. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address we cannot vouch for
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse rather than guess
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, 'ipv4');
  return PRIVATE.check(address, 'ipv6');
}

/** Why a URL may not be used, or null when it may. Resolves the host (DNS) unless private targets are allowed. */
export async function refusalOf(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'URL must be a valid http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'URL must use http or https';
  if (url.username || url.password) return 'URL must not contain credentials';
  if (allowPrivate) return null;
  try {
    const addresses = await resolveAll(hostOf(url));
    if (addresses.some((a) => isPrivateAddress(a.address)))
      return 'URL must not point to a private, loopback or link-local address';
  } catch {
    return 'URL host could not be resolved';
  }
  return null;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1'); // [::1] → ::1
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
}

/** A dns.lookup for http.request that refuses private addresses (the delivery-time check). */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
    resolveAll(hostname).then(
      (addresses) => {
        const refused = !allowPrivate && addresses.some((a) => isPrivateAddress(a.address));
        if (refused || addresses.length === 0)
          return callback(
            Object.assign(new Error('URL must not point to a private, loopback or link-local address'), {
              code: 'EPRIVATE',
            }),
          );
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
  opts: { timeoutMs: number; allowPrivate: boolean; signal?: AbortSignal },
): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'duration_ms' | 'ok'>): PostResult => ({
    ...r,
    ok: r.status_code !== null && r.status_code >= 200 && r.status_code < 300,
    duration_ms: Math.round(performance.now() - started),
  });
  const refusal = await refusalOfLiteral(url, opts.allowPrivate);
  if (refusal) return done({ status_code: null, response: null, error: refusal });
  return new Promise<PostResult>((resolve) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: guardedLookup(opts.allowPrivate) as any,
        signal: opts.signal,
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
          resolve(done({ status_code: res.statusCode ?? null, response: text || null, error: null }));
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`Timed out after ${opts.timeoutMs} ms`)), opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve(done({ status_code: null, response: null, error: err.message || err.code || 'Request failed' }));
    });
    req.end(body);
  });
}

/** IP-literal hosts never reach the lookup hook, so they are checked here. */
async function refusalOfLiteral(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'URL must be a valid http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'URL must use http or https';
  const host = hostOf(url);
  if (!allowPrivate && isIP(host) && isPrivateAddress(host))
    return 'URL must not point to a private, loopback or link-local address';
  return null;
}
