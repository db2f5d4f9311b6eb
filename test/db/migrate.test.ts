// Several processes migrate schemas of one PostgreSQL database at once (parallel test runs, one schema
// each): another schema vanishing mid-migration must not fail this one's.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { openDb } from '../../src/db/client.ts';
import { migrate, pendingMigrations } from '../../src/db/migrate.ts';
import { backend } from '../support/db.ts';

const url = process.env.TEST_DATABASE_URL;

test(
  'migrating one schema while another is dropped table by table succeeds (PostgreSQL)',
  { skip: backend === 'pglite' && 'PGlite: one database per process' },
  async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const schemas: string[] = [];
    try {
      for (let round = 0; round < 6; round++) {
        const victim = `t_${randomBytes(6).toString('hex')}`;
        const ours = `t_${randomBytes(6).toString('hex')}`;
        schemas.push(victim, ours);
        // many tables with serial columns: Kysely's listing looks each one up after its catalog scan
        const tables = Array.from({ length: 150 }, (_, i) => `create table ${victim}.v${i} (id serial, a int)`);
        await admin.query(`create schema ${victim}; ${tables.join(';')}; create schema ${ours}`);
        const handle = await openDb({ url, schema: ours, poolSize: 2, workerPoolSize: 1 });
        try {
          const dropper = new pg.Client({ connectionString: url });
          await dropper.connect();
          // drop the tables one statement at a time while the migration lists them
          const dropping = (async () => {
            for (let i = 0; i < 150; i++) await dropper.query(`drop table ${victim}.v${i}`);
            await dropper.query(`drop schema ${victim}`);
          })();
          const [applied] = await Promise.all([migrate(handle.db), dropping]).finally(() => dropper.end());
          assert.ok(applied.length > 0);
          assert.deepEqual(await pendingMigrations(handle.db), []);
        } finally {
          await handle.close();
        }
      }
    } finally {
      for (const s of schemas) await admin.query(`drop schema if exists ${s} cascade`);
      await admin.end();
    }
  },
);
