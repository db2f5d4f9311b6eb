// Test setup for campaigns: audiences created set-based in SQL (10,000 subscribers in one statement),
// and polling helpers that wait on the REST API for a campaign to reach a state.
import { sql } from 'kysely';
import type { Db } from '../../src/db/client.ts';
import type { ApiClient } from './server.ts';

/** A group with `n` active subscribers r<i>@<domain>, first_name "Name<i>", custom_fields {company: "Co<i>"}. */
export async function seedAudience(
  db: Db,
  accountId: string,
  n: number,
  opts: { group?: string; domain?: string; start?: number } = {},
): Promise<{ groupId: string }> {
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
    insert into subscriber_groups (group_id, subscriber_id, account_id) select ${group.id}::uuid, id, ${accountId}::uuid from s`.execute(
    db,
  );
  return { groupId: group.id };
}

export async function waitForCampaign(
  api: ApiClient,
  id: string,
  pred: (c: any) => boolean,
  timeoutMs = 30_000,
): Promise<any> {
  const until = Date.now() + timeoutMs;
  let last: any;
  for (;;) {
    const res = await api.get(`/campaigns/${id}`);
    last = res.body?.data;
    if (last && pred(last)) return last;
    if (Date.now() > until)
      throw new Error(`campaign did not reach the expected state in ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function ledgerCounts(db: Db, campaignId: string): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('campaign_recipients')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('campaign_id', '=', campaignId)
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/**
 * Creates subscribers with these addresses in a new group, sends them an instant campaign and waits until
 * it is sent. Returns the campaign id and each address's Message-ID from the ledger.
 */
export async function sendCampaignTo(
  db: Db,
  api: ApiClient,
  accountId: string,
  emails: string[],
  extra: Record<string, unknown> = {},
) {
  const group = await db
    .insertInto('groups')
    .values({ account_id: accountId, name: `To ${Math.random().toString(36).slice(2)}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  const subs = await db
    .insertInto('subscribers')
    .values(emails.map((email, i) => ({ account_id: accountId, email, first_name: `First${i}`, custom_fields: '{}' })))
    .returning(['id', 'email'])
    .execute();
  await db
    .insertInto('subscriber_groups')
    .values(subs.map((s) => ({ group_id: group.id, subscriber_id: s.id, account_id: accountId })))
    .execute();
  const created = await api.post('/campaigns', {
    name: 'Test campaign',
    subject: 'Hello {{ subscriber.first_name }}',
    content_html: '<p>Hi {{ subscriber.first_name }}</p><p><a href="https://example.org/page">Read</a></p>',
    group_ids: [group.id],
    ...extra,
  });
  if (created.status !== 201) throw new Error(`create campaign: ${JSON.stringify(created.body)}`);
  const id = created.body.data.id as string;
  const scheduled = await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
  if (scheduled.status !== 200) throw new Error(`schedule campaign: ${JSON.stringify(scheduled.body)}`);
  await waitForCampaign(api, id, (c) => c.status === 'sent');
  const rows = await db
    .selectFrom('campaign_recipients')
    .select(['email', 'message_id', 'subscriber_id'])
    .where('campaign_id', '=', id)
    .execute();
  return {
    campaignId: id,
    groupId: group.id,
    subscriberIds: new Map(subs.map((s) => [s.email, s.id])),
    messageIds: new Map(rows.map((r) => [r.email, r.message_id!])),
  };
}

/** Events of one type, oldest first; `data` typed loosely for assertions. */
export async function eventsOfType(
  db: Db,
  accountId: string,
  type: string,
): Promise<{ subscriber_id: string | null; data: any }[]> {
  return db
    .selectFrom('events')
    .select(['subscriber_id', 'data'])
    .where('account_id', '=', accountId)
    .where('type', '=', type)
    .orderBy('seq')
    .execute();
}
