// A fresh database for a test: in-memory PGlite, or a new schema on TEST_DATABASE_URL; migratedDb also
// brings it to the current schema and removes it when the scope ends.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { openDb, type Db, type DbHandle } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { fileScope, type Scope } from './scope.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export const backend: 'postgres' | 'pglite' = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDb {
  handle: DbHandle;
  /** pg-boss schema to use with this database */
  queueSchema?: string;
  /** PostgreSQL only: connection string + schema, for child processes */
  url?: string;
  schema?: string;
  /** PostgreSQL only: how another process would connect to this database (its own client, same schema) */
  clientConfig?: pg.ClientConfig;
  destroy(): Promise<void>;
}

/** A fresh database with every migration applied (PGlite: loaded from the migrated template). */
export async function openTestDb(): Promise<TestDb> {
  if (!TEST_DATABASE_URL) {
    const handle = await openDb({ loadDataDir: await migratedTemplate() });
    return { handle, destroy: () => handle.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const handle = await openDb({ url: TEST_DATABASE_URL, schema, poolSize: 5, workerPoolSize: 2 });
  return {
    handle,
    queueSchema: `${schema}_boss`,
    url: TEST_DATABASE_URL,
    schema,
    clientConfig: { connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema},public` },
    async destroy() {
      await handle.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade; drop schema if exists ${schema}_boss cascade`);
      await c.end();
    },
  };
}

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);
let template: Promise<Blob> | undefined;

/**
 * A dump of a PGlite data directory with every migration applied, made once per set of migrations and kept
 * in the system's temp directory for every test process. Nearly every test file opens PGlite: creating a
 * cluster (initdb) and migrating it took 17 s of one process at a load of 16 on this 2-core machine,
 * loading this dump 3 s; a server's start on it (pg-boss's schema included) went from 5.9 s to 3 s.
 */
function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const hash = createHash('sha256');
    for (const pkg of ['@electric-sql/pglite', 'pg-boss'])
      hash.update(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url)));
    hash.update(readFileSync(new URL('../../src/db/migrate.ts', import.meta.url)));
    for (const name of readdirSync(MIGRATIONS).sort())
      hash.update(name).update(readFileSync(new URL(name, MIGRATIONS)));
    const file = join(tmpdir(), `mailgrove-test-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const handle = await openDb({});
    try {
      await migrate(handle.db);
      // pg-boss's own schema too (its default name, the one PGlite servers use): its creation was half
      // of a server's start
      const boss = new PgBoss({
        db: { executeSql: (text: string, values?: unknown[]) => handle.executeSql(text, values) },
        supervise: false,
        schedule: false,
      } as PgBoss.ConstructorOptions);
      await boss.start();
      await boss.stop({ graceful: false, wait: true });
      const dump = await handle.dump!();
      // written aside and renamed: a process that reads it never sees half a file
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
      renameSync(partial, file);
      return dump;
    } finally {
      await handle.close();
    }
  })();
  return template;
}

export interface MigratedDb extends TestDb {
  db: Db;
}

/** A fresh database with every migration applied, destroyed when the scope ends (by default the file). */
export async function migratedDb(scope: Scope = fileScope): Promise<MigratedDb> {
  const testDb = await openTestDb();
  scope.after(() => testDb.destroy());
  await migrate(testDb.handle.db);
  return { ...testDb, db: testDb.handle.db };
}
