// Applies the ordered SQL files in ./migrations through Kysely's Migrator (recorded in schema_migrations).
// Files are frozen once merged; the Migrator's lock lets several instances start at once.
import { readdirSync, readFileSync } from 'node:fs';
import { Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './client.ts';

const DIR = new URL('./migrations/', import.meta.url);

const provider: MigrationProvider = {
  async getMigrations() {
    const migrations: Record<string, Migration> = {};
    for (const file of readdirSync(DIR)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      const text = readFileSync(new URL(file, DIR), 'utf8');
      // the only sql.raw in the codebase: the text is ours, shipped with the code
      migrations[file.replace(/\.sql$/, '')] = { up: async (db) => void (await sql.raw(text).execute(db)) };
    }
    return migrations;
  },
};

async function migratorFor(db: Db): Promise<{ migrator: Migrator; schema: string }> {
  // Without a schema, Kysely's "does the table exist" check matches schema_migrations in ANY schema, so a
  // fresh schema next to another one that has it (parallel tests on one PostgreSQL) skips creating it and fails.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({
    db,
    provider,
    migrationTableSchema: rows[0]!.schema,
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    // parallel branches add files with earlier dates than ones already applied elsewhere
    allowUnorderedMigrations: true,
  });
  return { migrator, schema: rows[0]!.schema };
}

/** The migrations this code ships that the database has not applied (readiness: a newer instance migrated, not this one). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const { migrator, schema } = await migratorFor(db);
  const migrations = await retriedWhileAnotherSchemaVanishes(schema, () => migrator.getMigrations());
  return migrations.filter((m) => !m.executedAt).map((m) => m.name);
}

export async function migrate(db: Db): Promise<string[]> {
  const { migrator, schema } = await migratorFor(db);
  const { error, results } = await retriedWhileAnotherSchemaVanishes(schema, async () => {
    const outcome = await migrator.migrateToLatest();
    // no results: it failed in the listing, before any migration ran, so trying again is safe
    if (outcome.error && !outcome.results && vanishedElsewhere(outcome.error, schema)) throw outcome.error;
    return outcome;
  });
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`Migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Kysely's Migrator looks for its own table by listing the tables of every schema. A schema another process
 * drops meanwhile (parallel test runs on one database) fails that listing, as `schema "x" does not exist`
 * or, when a table of it vanishes between the catalog scan and a per-table lookup, `relation "x.t" does
 * not exist`, or, when a column vanishes between the scan and Kysely's `pg_get_serial_sequence` on it,
 * `column "c" of relation "t" does not exist` (which names no schema; ours is only being listed, so it
 * is another's). Nothing was applied then (the listing comes before the migrations' transaction), so the
 * step is tried again, for as long as other schemas keep changing under it (up to half a minute).
 */
async function retriedWhileAnotherSchemaVanishes<T>(ours: string, step: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + 30_000;
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (Date.now() > giveUpAt || !vanishedElsewhere(error, ours)) throw error;
      await new Promise((r) => setTimeout(r, Math.min(25 * attempt, 250)));
    }
  }
}

function vanishedElsewhere(error: unknown, ours: string): boolean {
  const message = (error as Error)?.message ?? '';
  if (/^column "[^"]+" of relation "[^"]+" does not exist/.test(message)) return true;
  const m =
    /^schema "([^"]+)" does not exist/.exec(message) ?? /^relation "([^".]+)\.[^"]+" does not exist/.exec(message);
  return m !== null && m[1] !== ours;
}
