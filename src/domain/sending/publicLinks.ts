// Whether the links this instance puts in mail (PUBLIC_URL) would point at an address recipients cannot
// reach: a private, loopback or link-local address, or a name that only exists on a local network. The
// dashboard shows a banner then; no DNS lookup, so it is cheap enough for every page load.
import { isIP } from 'node:net';
import type { Config } from '../../config.ts';
import { isPrivateAddress } from '../../mail/publicHost.ts';

const LOCAL_NAME = /(^|\.)(localhost|local|internal|lan|home\.arpa|test|invalid|example)$/;

export function linksArePrivate(config: Pick<Config, 'publicUrl'>): boolean {
  let host: string;
  try {
    host = new URL(config.publicUrl).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return true;
  }
  if (isIP(host)) return isPrivateAddress(host);
  return !host.includes('.') || LOCAL_NAME.test(host);
}
