// The CLI operator story of cli.test.ts on PostgreSQL (DATABASE_URL to a database created for the test),
// in its own file so each store gets the runner's per-file time budget.
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import pg from 'pg';
import { operatorStory } from './support/cli.ts';

const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

describe('CLI', () => {
  test(
    'CLI › the same story on PostgreSQL (DATABASE_URL)',
    { skip: TEST_DATABASE_URL ? false : 'TEST_DATABASE_URL is not set' },
    async () => {
      const name = `mailgrove_cli_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      try {
        const url = new URL(TEST_DATABASE_URL!);
        url.pathname = `/${name}`;
        await operatorStory({ DATABASE_URL: url.toString() }, { lock: false });
      } finally {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      }
    },
  );
});
