// Reads "Authorization: Bearer <key>" and resolves the key; shared by REST, MCP and the CLI-facing admin calls.
import type { Db } from '../db/client.ts';
import * as apiKeys from '../domain/apiKeys.ts';

export type { KeyContext, AuthFailure } from '../domain/apiKeys.ts';

export const AUTH_MESSAGES: Record<apiKeys.AuthFailure, string> = {
  missing: 'Missing Authorization header',
  malformed: 'Authorization header must be in the form: Bearer <API_KEY>',
  unknown: 'Invalid API key',
  revoked: 'API key has been revoked',
  expired: 'API key has expired',
};

export function bearerToken(header: string | undefined): string | apiKeys.AuthFailure {
  if (header === undefined || header.trim() === '') return 'missing';
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : 'malformed';
}

export async function authenticateHeader(db: Db, header: string | undefined): Promise<apiKeys.KeyContext | apiKeys.AuthFailure> {
  const token = bearerToken(header);
  if (token === 'missing' || token === 'malformed') return token;
  return apiKeys.authenticate(db, token);
}
