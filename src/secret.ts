// The HMAC secret behind tracking, unsubscribe and confirmation tokens: MAILGROVE_SECRET, or one generated
// on first start and kept in the database (so a restart or a second instance signs alike).
import { randomBytes } from 'node:crypto';
import type { Db } from './db/client.ts';

export async function resolveSecret(db: Db, configured?: string): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('instance_settings')
    .values({ key: 'secret', value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('instance_settings')
    .select('value')
    .where('key', '=', 'secret')
    .executeTakeFirstOrThrow();
  return row.value;
}
