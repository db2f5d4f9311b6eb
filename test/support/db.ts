// A fresh database for a test: in-memory PGlite, or a new schema on TEST_DATABASE_URL; migratedDb also
// brings it to the current schema and removes it when the scope ends.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
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

export async function openTestDb(): Promise<TestDb> {
  if (!TEST_DATABASE_URL) {
    const handle = await openDb({});
    return { handle, destroy: () => handle.close() };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const handle = await openDb({ url: TEST_DATABASE_URL, schema, poolSize: 5 });
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
