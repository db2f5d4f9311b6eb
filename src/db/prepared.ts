// Hot statements kept prepared on each PostgreSQL connection. A Kysely query is sent as an unnamed
// statement, which PostgreSQL parses and plans anew on every call; for a read like the full subscriber
// (two json_agg subqueries) planning is most of its cost: 5.8k q/s unnamed vs 16.4k q/s named on this
// machine (docs/performance.md). Only queries a module builds with `preparedQuery()` are named, so the set of
// statements per connection stays small and fixed, and plans that depend on their parameters (LIKE
// searches, audience queries) keep being planned per call.
import type { Compilable, CompiledQuery, Kysely, QueryResult, RawBuilder } from 'kysely';
import pg from 'pg';
import type { ChangeClock } from './changeClock.ts';

const names = new Map<string, string>();

/**
 * A hot query whose shape is fixed and only its values change: `build` runs once, with placeholder values,
 * and every call binds the real values where Kysely put the placeholders, so a call costs no query
 * building (Kysely's builder and compiler were ~15 % of the server's CPU on GET /subscribers/{id}).
 * `build` must pass each value straight into the query (no transformation): the caller normalises first.
 */
export function preparedQuery<P extends Record<string, string>, O>(
  build: (db: Kysely<any>, params: P) => Compilable<O>,
) {
  let shape: { compiled: CompiledQuery<O>; order: (keyof P)[] } | undefined;
  return async (db: Kysely<any>, params: P): Promise<O[]> => {
    if (!shape) {
      const marks = Object.fromEntries(Object.keys(params).map((k) => [k, `\u0000mark:${k}`])) as P;
      const compiled = build(db, marks).compile();
      const order = compiled.parameters.map((value) => {
        const key = Object.keys(marks).find((k) => marks[k] === value);
        if (key === undefined)
          throw new Error(
            `preparedQuery: a parameter of ${compiled.sql} is not one of ${Object.keys(marks).join(', ')}`,
          );
        return key as keyof P;
      });
      if (!names.has(compiled.sql)) names.set(compiled.sql, `mg_${names.size + 1}`);
      shape = { compiled, order };
    }
    const { compiled, order } = shape;
    const result = await db.executeQuery<O>({ ...compiled, parameters: order.map((k) => params[k]) });
    return result.rows;
  };
}

/** at most this many raw statements are named: a text built from varying fragments must not fill the map */
const MAX_NAMED_RAW = 32;
let namedRaw = 0;

/**
 * A raw statement whose text never changes (its values, arrays included, are all parameters), sent named
 * like `preparedQuery()`'s. For the send worker's ledger write, planning was a quarter of PostgreSQL's time
 * (0.42 of 1.65 ms a statement, pg_stat_statements over a 30,000-recipient send).
 */
export function executeNamed<O>(db: Kysely<any>, query: RawBuilder<O>): Promise<QueryResult<O>> {
  const compiled = query.compile(db);
  if (!names.has(compiled.sql) && namedRaw < MAX_NAMED_RAW) {
    names.set(compiled.sql, `mg_${names.size + 1}`);
    namedRaw++;
  }
  return db.executeQuery(compiled);
}

/**
 * pg's Client as Kysely calls it (`query(text, values)`): names the statements `preparedQuery()` and `executeNamed()` registered
 * (pg sends Parse once per connection for a name, then only Bind/Execute, so PostgreSQL reuses the plan),
 * and ticks the change clock after statements that may have written. Calls in other forms (pg-boss sends
 * `{ text, values }`) pass through untouched: its tables are no cached read's business.
 */
export function clientClass(clock: ChangeClock): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    override query(...args: any[]): any {
      const [text, values] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || args.length !== 2)
        return (super.query as (...a: any[]) => any)(...args);
      const name = names.get(text);
      const pending: Promise<pg.QueryResult> = name ? super.query({ name, text, values }) : super.query(text, values);
      return pending.then(
        (r) => {
          clock.noteStatement(text, r.rowCount);
          return r;
        },
        (err) => {
          clock.noteStatement(text, undefined);
          throw err;
        },
      );
    }
  };
}
