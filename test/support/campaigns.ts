// Test setup for campaigns: audiences created set-based in SQL (10,000 subscribers in one statement),
// and polling helpers that wait on the REST API for a campaign to reach a state.
import { after } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/client.ts';
import type { client, startServer } from './server.ts';

/** startServer's context for a server shared by a whole test file (node:test's file-level after hook). */
export const fileScope = { after } as unknown as Parameters<typeof startServer>[0];

type Api = ReturnType<typeof client>;

/** A group with `n` active subscribers r<i>@<domain>, first_name "Name<i>", custom_fields {company: "Co<i>"}. */
export async function seedAudience(db: Db, accountId: string, n: number, opts: { group?: string; domain?: string; start?: number } = {}): Promise<{ groupId: string }> {
  const group = await db
    .insertInto('groups')
    .values({ account_id: accountId, name: opts.group ?? `Audience ${Math.random().toString(36).slice(2)}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  const domain = opts.domain ?? 'example.com';
  const start = opts.start ?? 1;
  await sql`
    with s as (
      insert into subscribers (account_id, email, first_name, custom_fields)
      select ${accountId}::uuid, 'r' || g || '@' || ${domain}, 'Name' || g, jsonb_build_object('company', 'Co' || g)
      from generate_series(${start}::int, ${start + n - 1}::int) g
      returning id
    )
    insert into subscriber_groups (group_id, subscriber_id, account_id) select ${group.id}::uuid, id, ${accountId}::uuid from s`.execute(db);
  return { groupId: group.id };
}

export async function waitForCampaign(api: Api, id: string, pred: (c: any) => boolean, timeoutMs = 30_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  let last: any;
  for (;;) {
    const res = await api.get(`/campaigns/${id}`);
    last = res.body?.data;
    if (last && pred(last)) return last;
    if (Date.now() > until) throw new Error(`campaign did not reach the expected state in ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function ledgerCounts(db: Db, campaignId: string): Promise<Record<string, number>> {
  const rows = await db.selectFrom('campaign_recipients').select(['state', (eb) => eb.fn.countAll<number>().as('n')]).where('campaign_id', '=', campaignId).groupBy('state').execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}
