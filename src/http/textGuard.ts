// The text rule (domain/storable.ts) applied at the edge of every face but MCP, which applies it to tool
// arguments itself so its errors stay JSON-RPC: every string of a parsed body and of the query string is
// checked and normalised to NFC before any route reads it. A refused string is a 400 naming its field.
// Bodies still raw text (MCP's, a provider's text/plain hook) are left to the route that parses them.
import type { FastifyRequest } from 'fastify';
import { acceptText, notStorableAt, replaceUnstorableIn } from '../domain/storable.ts';

export async function textGuard(req: FastifyRequest): Promise<void> {
  const replace = req.routeOptions.config?.textRule === 'replace';
  for (const part of ['query', 'body'] as const) {
    const value = req[part];
    if (value === null || typeof value !== 'object') continue;
    if (replace) {
      replaceUnstorableIn(value);
      continue;
    }
    const checked = acceptText(value);
    if (checked.path !== undefined) throw notStorableAt(checked.path);
  }
}
