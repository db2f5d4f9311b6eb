// Opens the one database Mailgrove runs on: PostgreSQL when a URL is given, else embedded PGlite.
// Both are exposed as the same Kysely<DB>; int8 comes back as a number and date as a string on both,
// so no code has to know which store it is on.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { citext } from '@electric-sql/pglite/contrib/citext';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { CompiledQuery, Kysely } from 'kysely';
import pg from 'pg';
import { PGliteDialect, untracked } from './pgliteDialect.ts';
import { PipelinedPostgresDialect } from './postgresDialect.ts';
import { ChangeClock, registerClock } from './changeClock.ts';
import { listenForChanges } from './changeListener.ts';
import { analyzePeriodically } from './maintenance.ts';
import { Notices, registerNotices } from './notices.ts';
import { clientClass } from './prepared.ts';
import type { DB } from './schema.ts';

export type Db = Kysely<DB>;

export interface DbHandle {
  db: Db;
  /**
   * The background workers' database: on PostgreSQL a pool of its own, so a burst of API requests queued
   * for connections does not hold a send's ledger writes back (with one pool of 10, a send under 50 busy
   * API clients took 3.4 times as long as idle); the same change clock. On PGlite the same Db.
   */
  workerDb: Db;
  kind: 'postgres' | 'pglite';
  /** Counts the writes this process made or heard of; read caches key on it (db/readCache.ts). */
  changes: ChangeClock;
  /**
   * Runs raw SQL through the same connection discipline as Kysely (pg-boss uses this). It does not tick the
   * change clock. `name` makes it a named statement on PostgreSQL, planned once per connection (for a
   * statement run on every request; one fixed text per name).
   */
  executeSql(text: string, values?: unknown[], name?: string): Promise<{ rows: any[]; rowCount?: number }>;
  /**
   * executeSql for the statements that gate every request (the shared rate-limit counts): on PostgreSQL
   * through two connections of their own, so they never queue behind the requests they let in (in the
   * request pool's queue, 50 busy clients made each request wait for its count behind 20 other queries).
   */
  executeGateSql(text: string, values?: unknown[], name?: string): Promise<{ rows: any[]; rowCount?: number }>;
  close(): Promise<void>;
  /** PGlite only: the whole data directory as an uncompressed tarball (PGlite's dumpDataDir) */
  dump?(): Promise<Blob>;
  /** PostgreSQL only: the connection pool's counts, for the metrics endpoint */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number; max: number };
}

/**
 * The search indexes (GIN, trigram) keep new entries in a pending list until it reaches
 * gin_pending_list_limit, 4 MB by default, and every search reads that list in full. Under a steady stream
 * of creates and updates (the mixed-load bench: ~100 of each a second) the lists stayed full: a search cost
 * PostgreSQL ~19 ms instead of ~1.5 and the mix served 664 requests a second (1,534 with 128 kB). Import
 * batches set the default back for their own transaction (a 128 kB list made a PGlite import of 100,000
 * rows 8.2 → 10.2 s) and empty the lists once at their end.
 */
const PENDING_LIST_KB = 128;
// JIT off: compiling the audience count's one aggregate took longer than running it (0.4 to 1.1 s at a
// million subscribers), and the other statements are short ones that JIT only slows
const SESSION_SETTINGS = `-c gin_pending_list_limit=${PENDING_LIST_KB} -c jit=off`;

/**
 * A new WAL segment is created by writing its last byte instead of 16 MB of zeros first: the zeros only
 * reserve disk space ahead, and PGlite writes every byte through JavaScript (a 100,000-row import created
 * ~20 segments: 340 MB of extra writes, ~1 s of its ~11 s). Readers of the WAL never depend on the zeros.
 */
const PGLITE_SETTINGS = ['-c', 'wal_init_zero=off'];

/**
 * A PGlite in memory (tests, and nothing an operator starts) keeps its "disk" in the same process's memory,
 * so a page that falls out of a small buffer pool is read back with a copy. The default pool (128 MB) is
 * zeroed page by page by PostgreSQL at every start: ~0.5 s of CPU out of ~2 s for each database a test
 * process opens.
 */
const PGLITE_IN_MEMORY_SETTINGS = ['-c', 'shared_buffers=16MB'];

const INT8 = 20;
const DATE = 1082;

export interface OpenOptions {
  /** PostgreSQL connection string; without it PGlite is used. */
  url?: string;
  /** PGlite data directory; undefined = in memory. */
  dataDir?: string;
  /** PostgreSQL only: run everything in this schema (tests isolate themselves this way). */
  schema?: string;
  /** PGlite in memory only: start from this dump of a data directory instead of an empty cluster */
  loadDataDir?: Blob;
  poolSize?: number;
  /** PostgreSQL only: connections of the background workers' own pool (`workerDb`) */
  workerPoolSize?: number;
}

export async function openDb(opts: OpenOptions): Promise<DbHandle> {
  return opts.url ? openPostgres(opts.url, opts) : openPGlite(opts.dataDir, opts.loadDataDir);
}

function openPostgres(url: string, opts: OpenOptions): DbHandle {
  const types = {
    getTypeParser(oid: number, format?: any) {
      if (oid === INT8) return (v: string) => Number(v);
      if (oid === DATE) return (v: string) => v;
      return pg.types.getTypeParser(oid, format);
    },
  };
  const connection = {
    connectionString: url,
    options: [SESSION_SETTINGS, opts.schema && `-c search_path=${opts.schema},public`].filter(Boolean).join(' '),
  };
  const changes = new ChangeClock(false);
  const notices = new Notices();
  const newPool = (max: number) => {
    const pool = new pg.Pool({ ...connection, max, types, Client: clientClass(changes) });
    // an idle client that loses its server must not crash the process; the next query reports it
    pool.on('error', () => {});
    const db = new Kysely<DB>({ dialect: new PipelinedPostgresDialect({ pool }) });
    registerClock(db, changes);
    registerNotices(db, notices);
    return { pool, db };
  };
  const { pool, db } = newPool(opts.poolSize ?? 10);
  const workers = newPool(opts.workerPoolSize ?? 4);
  const gate = newPool(GATE_POOL_SIZE);
  const listener = listenForChanges(connection, changes, notices);
  return {
    db,
    workerDb: workers.db,
    kind: 'postgres',
    changes,
    pool: {
      get totalCount() {
        return pool.totalCount;
      },
      get idleCount() {
        return pool.idleCount;
      },
      get waitingCount() {
        return pool.waitingCount;
      },
      max: opts.poolSize ?? 10,
    },
    executeSql: (text, values, name) => rawQuery(pool, text, values, name),
    executeGateSql: (text, values, name) => rawQuery(gate.pool, text, values, name),
    async close() {
      await listener.close();
      await Promise.all([db.destroy(), workers.db.destroy(), gate.db.destroy()]);
    },
  };
}

const GATE_POOL_SIZE = 2;

async function rawQuery(pool: pg.Pool, text: string, values?: unknown[], name?: string) {
  // the config form: pg-boss's own statements neither get named nor tick the change clock
  const r = await pool.query({ text, values: values as any[], ...(name && { name }) });
  return { rows: r.rows, rowCount: r.rowCount ?? undefined };
}

async function openPGlite(dataDir?: string, loadDataDir?: Blob): Promise<DbHandle> {
  let unlock = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      dataDir,
      ...(loadDataDir && !dataDir && { loadDataDir }),
      extensions: { citext, pg_trgm },
      startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS, ...(dataDir ? [] : PGLITE_IN_MEMORY_SETTINGS)],
      parsers: { [INT8]: (v: string) => Number(v), [DATE]: (v: string) => v },
    });
  } catch (err) {
    unlock();
    throw err;
  }
  await pglite.exec(`set gin_pending_list_limit = ${PENDING_LIST_KB}`);
  const changes = new ChangeClock(true);
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite, changes) });
  registerClock(db, changes);
  const stopAnalyzing = analyzePeriodically(db, changes);
  const executeSql = async (text: string, values?: unknown[]) => {
    const r = await db.executeQuery(untracked(CompiledQuery.raw(text, (values ?? []) as unknown[])));
    return {
      rows: r.rows as any[],
      rowCount: r.numAffectedRows === undefined ? undefined : Number(r.numAffectedRows),
    };
  };
  return {
    db,
    workerDb: db,
    kind: 'pglite',
    changes,
    dump: () => pglite.dumpDataDir('none'),
    executeSql,
    executeGateSql: executeSql,
    async close() {
      stopAnalyzing();
      await db.destroy();
      unlock();
    },
  };
}

// PGlite lets two processes open one data dir without complaint and then corrupts it:
// a pid lock file refuses the second process with a message that says what to do.
function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'mailgrove.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (err: any) {
      if (err.code !== 'EEXIST') throw err;
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new Error(
          `The data directory ${resolve(dataDir)} is in use by another Mailgrove process (pid ${pid}). ` +
            'Stop it first, or set MAILGROVE_DATA_DIR to another directory, or use DATABASE_URL for several processes.',
        );
      }
      rmSync(file, { force: true }); // left behind by a process that died
    }
  }
  throw new Error(`Could not lock the data directory ${resolve(dataDir)}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err: any) {
    return err.code === 'EPERM';
  }
}
