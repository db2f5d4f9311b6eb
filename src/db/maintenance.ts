// PGlite has no autovacuum, so nothing refreshes the planner's statistics as tables grow: a search that
// found its trigram index at 1,000 subscribers could plan a sequential scan at 100,000. While writes happen,
// the whole database is analysed every few minutes (ANALYZE samples 30,000 rows a table: ~0.1-0.5 s at
// 100,000 subscribers, during which PGlite's one connection waits). PostgreSQL's autovacuum does this itself.
import { CompiledQuery, type Kysely } from 'kysely';
import type { ChangeClock } from './changeClock.ts';
import { untracked } from './pgliteDialect.ts';

export const ANALYZE_EVERY_MS = 5 * 60_000;

/** Analyses the database every `everyMs` if anything was written since the last time; returns the stop. */
// typed loosely so this module needs nothing from client.ts (no import cycle)
export function analyzePeriodically(db: Kysely<any>, changes: ChangeClock, everyMs = ANALYZE_EVERY_MS): () => void {
  let seen = changes.now;
  let running = false;
  const timer = setInterval(() => {
    if (running || changes.now === seen) return;
    running = true;
    seen = changes.now;
    db.executeQuery(untracked(CompiledQuery.raw('analyze')))
      .catch(() => {}) // a closed database at shutdown, or no right: the next round tries again
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
