// A fresh database for one test server: in-memory PGlite, or a new schema on TEST_DATABASE_URL.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDb, type DbHandle } from '../../src/db/client.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

export const backend: 'postgres' | 'pglite' = TEST_DATABASE_URL ? 'postgres' : 'pglite';

export interface TestDb {
  handle: DbHandle;
  /** pg-boss schema to use with this database */
  queueSchema?: string;
  /** PostgreSQL only: connection string + schema, for child processes */
  url?: string;
  schema?: string;
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
    async destroy() {
      await handle.close();
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade; drop schema if exists ${schema}_boss cascade`);
      await c.end();
    },
  };
}
