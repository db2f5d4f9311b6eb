// Hot statements kept prepared on each PostgreSQL connection. A Kysely query is sent as an unnamed
// statement, which PostgreSQL parses and plans anew on every call; for a read like the full subscriber
// (two json_agg subqueries) planning is most of its cost: 5.8k q/s unnamed vs 16.4k q/s named on this
// machine (docs/performance.md). Only queries a module marks with `prepared()` are named, so the set of
// statements per connection stays small and fixed, and plans that depend on their parameters (LIKE
// searches, audience queries) keep being planned per call.
import type { Compilable, Kysely } from 'kysely';
import pg from 'pg';
import type { ChangeClock } from './changeClock.ts';

const names = new Map<string, string>();

/** Runs a Kysely query as a named (prepared) statement on PostgreSQL; PGlite runs it as usual. */
export async function prepared<O>(db: Kysely<any>, query: Compilable<O>): Promise<O[]> {
  const compiled = query.compile();
  if (!names.has(compiled.sql)) names.set(compiled.sql, `mg_${names.size + 1}`);
  const result = await db.executeQuery<O>(compiled);
  return result.rows;
}

/**
 * pg's Client as Kysely calls it (`query(text, values)`): names the statements `prepared()` registered
 * (pg sends Parse once per connection for a name, then only Bind/Execute, so PostgreSQL reuses the plan),
 * and ticks the change clock after statements that may have written. Calls in other forms (pg-boss sends
 * `{ text, values }`) pass through untouched: its tables are no cached read's business.
 */
export function clientClass(clock: ChangeClock): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    override query(...args: any[]): any {
      const [text, values] = args;
      if (typeof text !== 'string' || !Array.isArray(values) || args.length !== 2) return (super.query as (...a: any[]) => any)(...args);
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
