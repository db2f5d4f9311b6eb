// SQL for the subscribers table, its memberships, notes and activity: one function per query, accountId
// always. Custom-field definitions are in fieldQueries.ts, groups in groupQueries.ts, and what forget
// erases and the suppression list it leaves in forgetQueries.ts.
import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool, type Updateable } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Db } from '../../db/client.ts';
import type { DB, NewSubscriberRow, SubscribersTable, SubscriberStatus } from '../../db/schema.ts';
import type { FieldType } from './fields.ts';
import { executeNamed, preparedQuery } from '../../db/prepared.ts';
import * as counts from './countQueries.ts';
import { likePattern } from '../likePattern.ts';
import { offsetOf, type Paging } from '../paging.ts';

export function findById(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The row locked for a read-modify-write (update). */
export function findForUpdate(db: Db, accountId: string, id: string) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** The account's custom field types as [key, type] pairs, a subquery for a statement that reads them on the way. */
const fieldTypesOf = (account: RawBuilder<unknown>) =>
  sql<[string, FieldType][]>`(select coalesce(json_agg(json_build_array(f.key, f.type)), '[]') from fields f
    where f.account_id = ${account})`;

/**
 * findForUpdate with the account's custom field types, which an update coerces its custom_fields with:
 * one round trip for both.
 */
export async function findForUpdateWithFieldTypes(db: Db, accountId: string, id: string) {
  const [row] = await forUpdateWithFieldTypes(db, { accountId, id });
  if (!row) return undefined;
  const { field_types, ...subscriber } = row;
  return { subscriber, fieldTypes: new Map(field_types) };
}

// prepared: every update reads it, and planning it cost PostgreSQL twice what running it did
const forUpdateWithFieldTypes = preparedQuery((db: Db, p: { accountId: string; id: string }) =>
  db
    .selectFrom('subscribers')
    .selectAll()
    .select(fieldTypesOf(sql`${p.accountId}::uuid`).as('field_types'))
    .where('account_id', '=', p.accountId)
    .where('id', '=', p.id)
    .forUpdate(),
);

export function findByEmail(db: Db, accountId: string, email: string) {
  return db
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())) // same expression as the unique index
    .executeTakeFirst();
}

/**
 * A condition on the list's rows from another context. The list reads `subscribers as s`, so the
 * condition must name the table `s` (segments' whereMatches takes the alias as its table argument).
 */
export type Condition = (eb: ExpressionBuilder<DB, 'subscribers'>) => Expression<SqlBool>;

export interface SearchInput {
  page: number;
  per_page: number;
  status?: SubscriberStatus;
  search?: string;
  group_id?: string;
  /** a further condition built by another context (a segment's rules), ANDed with the rest */
  where?: Condition;
  /** the list with each row's source (the dashboard shows it; REST and MCP keep the spec's fields) */
  withSource?: boolean;
  /** where the page starts in the list's order, when known: the page is then an index range, not a skip */
  from?: PagePosition;
}

/**
 * Up to this many matches, a search's page is sorted out of the matches themselves (fewMatchesPage). Why the
 * planner cannot be left to choose: it guesses a word's matches from statistics, and a guess of 1,200 for a
 * surname 47 subscribers have made it walk the whole created_at index of an account of 20,000, filtering
 * each row (12 ms), where reading the 47 from the trigram indexes and sorting them takes 0.8 ms. Sorting
 * 1,000 matches costs about what walking an account of 1,000,000 for a page of 25 among 1,000 does; above
 * it the planner's choice stands (a word that many subscribers share is found early in the walk).
 */
export const FEW_MATCHES = 1000;

/**
 * A search's page and its exact total in one statement, if it matches at most FEW_MATCHES rows (else
 * undefined). The matches are read as a whole (OFFSET 0 keeps that subquery apart, so neither the order nor
 * the limit reaches into how it finds them: the trigram indexes), at most FEW_MATCHES + 1 of them, then
 * counted by a window and sorted. `total` is undefined when the page lies past the last match.
 */
export async function fewMatchesPage(
  db: Db,
  accountId: string,
  q: SearchInput,
): Promise<{ rows: SearchRow[]; total: number | undefined } | undefined> {
  const matches = filtered(db, accountId, q)
    .select(LIST_COLUMNS)
    .select(positionAt.as('position_at'))
    .$if(q.withSource === true, (qb) => qb.select('s.source'))
    .offset(0);
  const some = db
    .selectFrom(matches.as('m'))
    .selectAll('m')
    .limit(FEW_MATCHES + 1);
  const rows = await db
    .selectFrom(some.as('f'))
    .selectAll('f')
    .select(sql<string>`count(*) over ()`.as('matched'))
    .orderBy('f.created_at', 'desc')
    .orderBy('f.id', 'desc')
    .limit(q.per_page)
    .offset(offsetOf(q))
    .execute();
  const matched = rows[0] === undefined ? undefined : Number(rows[0].matched);
  if (matched !== undefined && matched > FEW_MATCHES) return undefined;
  return {
    // the row type does not survive two levels of subqueries: these are the list's columns and position
    rows: rows.map(({ matched: _m, ...row }) => row as SearchRow),
    total: matched ?? (offsetOf(q) === 0 ? 0 : undefined),
  };
}

const LIST_COLUMNS = ['s.id', 's.email', 's.first_name', 's.last_name', 's.status', 's.created_at'] as const;
export type SearchRow = Awaited<ReturnType<typeof search>>[number];

/**
 * A place in the list's order (created_at desc, id desc): a row's exact created_at (microseconds, UTC, as
 * text: a Date keeps only milliseconds) and id; the page starts at that row, or just after it.
 */
export interface PagePosition {
  at: string;
  id: string;
  inclusive: boolean;
}

const positionAt = sql<string>`to_char(s.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

/** The list's filter, also the set that bulk actions change and the export reads. */
export function filtered(db: Db, accountId: string, q: Omit<SearchInput, 'page' | 'per_page'>) {
  return db
    .selectFrom('subscribers as s')
    .where('s.account_id', '=', accountId)
    .$if(q.status !== undefined, (qb) => qb.where('s.status', '=', q.status!))
    .$if(q.where !== undefined, (qb) =>
      qb.where((eb) => q.where!(eb as unknown as ExpressionBuilder<DB, 'subscribers'>)),
    )
    .$if(q.group_id !== undefined, (qb) =>
      qb.where((eb) =>
        eb.exists(
          eb
            .selectFrom('subscriber_groups as sg')
            .select(sql.lit(1).as('one'))
            .whereRef('sg.subscriber_id', '=', 's.id')
            .where('sg.group_id', '=', q.group_id!),
        ),
      ),
    )
    .$if(q.search !== undefined && q.search !== '', (qb) =>
      // every word on its own (a full name "Ada Lovelace" spans first and last name); lower(col) LIKE lower
      // pattern are the expressions the trigram indexes are built on, so each word is an index condition
      qb.where((eb) =>
        eb.and(
          searchWords(q.search!).map((word) => {
            const p = likePattern(word);
            return eb.or([
              eb(eb.fn('lower', ['s.email']), 'like', p),
              eb(eb.fn('lower', ['s.first_name']), 'like', p),
              eb(eb.fn('lower', ['s.last_name']), 'like', p),
            ]);
          }),
        ),
      ),
    );
}

/**
 * The distinct words of a search. A word cannot span the space between first and last name, so "every
 * word matches email, first or last name" already finds whatever the phrase would find in
 * first_name || ' ' || last_name; the search's 254 characters bound the words to 127.
 */
function searchWords(search: string): string[] {
  return [
    ...new Set(
      search
        .toLowerCase()
        .split(/\s+/)
        .filter((w) => w !== ''),
    ),
  ];
}

export function search(db: Db, accountId: string, q: SearchInput) {
  const offset = offsetOf(q);
  const from = q.from;
  if (offset === 0 || from)
    // a known start is a range of the index (account_id, created_at desc, id desc), at any depth
    return filtered(db, accountId, q)
      .select(LIST_COLUMNS)
      .select(positionAt.as('position_at'))
      .$if(q.withSource === true, (qb) => qb.select('s.source'))
      .$if(from !== undefined, (qb) =>
        qb.where(
          sql`(s.created_at, s.id)`,
          from!.inclusive ? '<=' : '<',
          sql`((${from!.at}::timestamp at time zone 'UTC'), ${from!.id}::uuid)`,
        ),
      )
      .orderBy('s.created_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(q.per_page)
      .execute();
  // a deep page: the rows it skips are read from the index (account_id, created_at desc, id desc) alone, an
  // index-only scan where no filter needs the table, and only the page's own rows from the table
  const page = filtered(db, accountId, q)
    .select(['s.id', 's.created_at'])
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(q.per_page)
    .offset(offset);
  return db
    .selectFrom(page.as('p'))
    .innerJoin('subscribers as s', 's.id', 'p.id')
    .select(LIST_COLUMNS)
    .select(positionAt.as('position_at'))
    .$if(q.withSource === true, (qb) => qb.select('s.source'))
    .where('s.account_id', '=', accountId)
    .orderBy('p.created_at', 'desc')
    .orderBy('p.id', 'desc')
    .execute();
}

export async function countMatching(
  db: Db,
  accountId: string,
  q: Omit<SearchInput, 'page' | 'per_page'>,
): Promise<number> {
  // without a search or another context's condition, the total is one of the counts the database keeps
  if ((q.search === undefined || q.search === '') && q.where === undefined) {
    const c = await counts.byStatus(db, accountId, q.group_id);
    return q.status !== undefined ? c[q.status] : c.active + c.unsubscribed + c.bounced + c.complained;
  }
  const row = await filtered(db, accountId, q)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Subscribers of the account, any status: from the counts the database keeps (migration 20261126_1200). */
export async function countAll(db: Db, accountId: string): Promise<number> {
  const c = await counts.byStatus(db, accountId);
  return c.active + c.unsubscribed + c.bounced + c.complained;
}

export function countByStatus(db: Db, accountId: string): Promise<Record<SubscriberStatus, number>> {
  return counts.byStatus(db, accountId);
}

export async function subscriberLimit(db: Db, accountId: string): Promise<number> {
  const account = await db
    .selectFrom('accounts')
    .select('subscriber_limit')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return account.subscriber_limit;
}

/** What adding one subscriber reads before it writes (roomForOne). */
export interface RoomForOne {
  count: number;
  /** the kept count's rows summed for `count` (countQueries.compactIfLong) */
  deltas: number;
  limit: number;
  /** PostgreSQL's max_connections: at most this many creates can be uncommitted at once */
  sessions: number;
  fieldTypes: Map<string, FieldType>;
  /** the account's groups among those asked for, with their names */
  groups: Map<string, string>;
}

/**
 * The plan-limit check of one new subscriber, with what the create needs besides, in one round trip: the
 * account's custom field types and which of `groupIds` are its groups. `share` checks without waiting for
 * other creates: the account row is share-locked (as the insert's foreign key does anyway), so an exclusive
 * check waits for these creates and they for it. Any number of shared checks may run at once, at most
 * max_connections of them uncommitted, so while count + sessions ≤ limit they cannot together pass the
 * limit; nearer it the caller checks again with `exclusive`, which locks the row first and queues.
 */
export async function roomForOne(
  db: Db,
  accountId: string,
  groupIds: string[],
  lock: 'share' | 'exclusive',
): Promise<RoomForOne> {
  // locked first, on its own: the read below then takes its snapshot once the lock is granted, and counts
  // every create that committed before (a statement that waits for a lock keeps its earlier snapshot)
  if (lock === 'exclusive')
    await db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate().execute();
  // named: every create runs it, and planning it cost PostgreSQL more than running it (0.29 against 0.25 ms)
  const { rows } = await executeNamed(
    db,
    sql<{
      subscriber_limit: number;
      sessions: number;
      count: number;
      deltas: number;
      field_types: [string, FieldType][];
      groups: [string, string][];
    }>`
    select a.subscriber_limit, current_setting('max_connections')::int as sessions, k.count, k.deltas,
      ${fieldTypesOf(sql`a.id`)} as field_types,
      (select coalesce(json_agg(json_build_array(g.id, g.name)), '[]') from groups g
        where g.account_id = a.id and g.id = any(${groupIds}::uuid[])) as groups
    from accounts a
    cross join lateral (select coalesce(sum(c.n), 0)::int8 as count, count(*)::int as deltas
      from subscriber_counts c where c.account_id = a.id and c.group_id is null) k
    where a.id = ${accountId}::uuid
    ${lock === 'share' ? sql`for key share of a` : sql``}`,
  );
  const account = rows[0];
  if (!account) throw new Error(`account ${accountId} not found`);
  return {
    count: Number(account.count),
    deltas: Number(account.deltas),
    limit: account.subscriber_limit,
    sessions: account.sessions,
    fieldTypes: new Map(account.field_types),
    groups: new Map(account.groups),
  };
}

/** The exclusive plan-limit check: the account row locked, so concurrent checks of this account wait. */
export async function lockAndCount(db: Db, accountId: string): Promise<{ count: number; limit: number }> {
  const account = await db
    .selectFrom('accounts')
    .select('subscriber_limit')
    .where('id', '=', accountId)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { count: await countAll(db, accountId), limit: account.subscriber_limit };
}

export function insert(db: Db, row: NewSubscriberRow) {
  return db
    .insertInto('subscribers')
    .values(row)
    .onConflict((oc) => oc.expression(sql`account_id, lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst(); // undefined = the unique index refused a duplicate email
}

export function update(db: Db, accountId: string, id: string, changes: Updateable<SubscribersTable>) {
  return db
    .updateTable('subscribers')
    .set(changes)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Memberships and notes go with the row (ON DELETE CASCADE), its events through the AFTER DELETE trigger (migration 1100). */
export function remove(db: Db, accountId: string, id: string) {
  return db
    .deleteFrom('subscribers')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/**
 * One subscriber with its groups and notes in one round trip (json subqueries): the single-subscriber read
 * is the API's hottest path, and three sequential queries cost three round trips under load.
 * notes[].created_at comes back as JSON text; the domain turns it into a Date.
 */
export function findFull(db: Db, accountId: string, by: { id: string } | { email: string }) {
  // GET /subscribers/{id}, the API's hottest read: built once, planned once per connection (db/prepared.ts)
  const rows =
    'id' in by ? fullById(db, { accountId, id: by.id }) : fullByEmail(db, { accountId, email: by.email.toLowerCase() });
  return rows.then((r) => r[0]);
}

function fullSubscriber(db: Db, accountId: string) {
  return db
    .selectFrom('subscribers as s')
    .selectAll('s')
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom('subscriber_groups as sg')
          .innerJoin('groups as g', 'g.id', 'sg.group_id')
          .select(['g.id', 'g.name'])
          .whereRef('sg.subscriber_id', '=', 's.id')
          .where('sg.account_id', '=', accountId)
          .orderBy('g.name'),
      ).as('groups'),
      jsonArrayFrom(
        eb
          .selectFrom('subscriber_notes as n')
          .select(['n.id', 'n.content', 'n.created_at'])
          .whereRef('n.subscriber_id', '=', 's.id')
          .where('n.account_id', '=', accountId)
          .orderBy('n.created_at'),
      ).as('notes'),
    ])
    .where('s.account_id', '=', accountId);
}

const fullById = preparedQuery((db: Db, p: { accountId: string; id: string }) =>
  fullSubscriber(db, p.accountId).where('s.id', '=', p.id),
);
// lower(email): the expression of the unique index; the caller passes the address lowercased
const fullByEmail = preparedQuery((db: Db, p: { accountId: string; email: string }) =>
  fullSubscriber(db, p.accountId).where((eb) => eb(eb.fn('lower', ['s.email']), '=', p.email)),
);

/** Adds memberships; returns the (group, subscriber) pairs that were new. */
export async function addToGroups(db: Db, accountId: string, subscriberIds: string[], groupIds: string[]) {
  if (subscriberIds.length === 0 || groupIds.length === 0) return [];
  return db
    .insertInto('subscriber_groups')
    .columns(['group_id', 'subscriber_id', 'account_id'])
    .expression((eb) =>
      eb
        .selectFrom(sql<{ group_id: string }>`unnest(${sql.val(groupIds)}::uuid[])`.as('g'))
        .crossJoin(sql<{ subscriber_id: string }>`unnest(${sql.val(subscriberIds)}::uuid[])`.as('s'))
        .select([sql`g.g`.as('group_id'), sql`s.s`.as('subscriber_id'), sql.val(accountId).as('account_id')]),
    )
    .onConflict((oc) => oc.doNothing())
    .returning(['group_id', 'subscriber_id'])
    .execute();
}

export function removeFromGroups(
  db: Db,
  accountId: string,
  subscriberId: string,
  groupIds: string[] | 'all-except',
  keep: string[] = [],
) {
  return db
    .deleteFrom('subscriber_groups')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .$if(groupIds === 'all-except' && keep.length > 0, (qb) => qb.where('group_id', 'not in', keep))
    .$if(Array.isArray(groupIds), (qb) => qb.where('group_id', 'in', groupIds as string[]))
    .returning('group_id')
    .execute();
}

/** insert … select: a subscriber of another account (or none) inserts nothing, with no read-then-write gap. */
export function insertNote(db: Db, accountId: string, subscriberId: string, content: string) {
  return db
    .insertInto('subscriber_notes')
    .columns(['account_id', 'subscriber_id', 'content'])
    .expression((eb) =>
      eb
        .selectFrom('subscribers')
        .select([eb.val(accountId).as('account_id'), 'id', eb.val(content).as('content')])
        .where('account_id', '=', accountId)
        .where('id', '=', subscriberId),
    )
    .returning(['id', 'content', 'created_at'])
    .executeTakeFirst();
}

function eventsOf(db: Db, accountId: string, subscriberId: string, type: string | undefined) {
  return db
    .selectFrom('events')
    .where('account_id', '=', accountId)
    .where('subscriber_id', '=', subscriberId)
    .$if(type !== undefined, (qb) => qb.where('type', '=', type!));
}

/** One subscriber's events, newest first: the events_subscriber index (subscriber_id, created_at desc) serves the page. */
export function activity(db: Db, accountId: string, subscriberId: string, type: string | undefined, p: Paging) {
  return eventsOf(db, accountId, subscriberId, type)
    .select(['id', 'type', 'data', 'created_at'])
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(p.per_page)
    .offset(offsetOf(p))
    .execute();
}

/** How many events the subscriber's history holds; undefined when the account has no such subscriber. */
export async function countActivity(
  db: Db,
  accountId: string,
  subscriberId: string,
  type: string | undefined,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('subscribers')
    .select(() =>
      eventsOf(db, accountId, subscriberId, type)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .as('n'),
    )
    .where('account_id', '=', accountId)
    .where('id', '=', subscriberId)
    .executeTakeFirst();
  return row && Number(row.n);
}

/** id → name of the account's campaigns or automations among `ids` (the activity's names). */
export async function namesOf(
  db: Db,
  accountId: string,
  table: 'campaigns' | 'automations',
  ids: string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom(table)
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.name]));
}
