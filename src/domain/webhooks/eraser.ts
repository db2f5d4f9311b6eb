// Erases one address from the webhooks tables (forget_subscriber). Owned by the webhooks area.
// Delivery payloads are frozen copies of events, so they keep the address after the subscriber is gone:
// the subscriber object in them is cut down to its id, and any other mention of the address in a payload
// or in a receiver's logged response is replaced. Runs in forget's transaction.
import { sql } from 'kysely';
import type { Db } from '../../db/client.ts';
import type { ForgetTarget } from '../eraser.ts';

const REDACTED = '[forgotten]';

export async function erase(trx: Db, accountId: string, target: ForgetTarget): Promise<void> {
  const email = target.email.trim().toLowerCase();
  // the address as a case-insensitive regular expression (a bound parameter; metacharacters escaped)
  const pattern = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await sql`
    update webhook_deliveries
       set payload = jsonb_set(payload, '{data,subscriber}', jsonb_build_object('id', ${target.subscriberId}::text))
     where account_id = ${accountId}
       and jsonb_typeof(payload->'data'->'subscriber') = 'object'
       and (payload->'data'->'subscriber'->>'id' = ${target.subscriberId}::text
            or lower(payload->'data'->'subscriber'->>'email') = ${email})`.execute(trx);
  await sql`
    update webhook_deliveries
       set payload = regexp_replace(payload::text, ${pattern}, ${REDACTED}, 'gi')::jsonb
     where account_id = ${accountId} and position(${email} in lower(payload::text)) > 0`.execute(trx);
  await sql`
    update webhook_delivery_attempts
       set response = regexp_replace(response, ${pattern}, ${REDACTED}, 'gi')
     where account_id = ${accountId} and position(${email} in lower(response)) > 0`.execute(trx);
}
