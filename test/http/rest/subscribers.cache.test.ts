// GET /subscribers/{id} is served from a read cache (db/readCache.ts) and a prepared statement
// (db/prepared.ts). Whatever changes what the GET shows — through the API, the domain, a transaction or,
// on PostgreSQL, another process — must show on the next GET.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { sql } from 'kysely';
import * as repo from '../../../src/domain/subscribers/queries.ts';
import * as notes from '../../../src/domain/subscribers/notes.ts';
import { backend } from '../../support/db.ts';
import { restClient, startServer } from '../../support/server.ts';
import { until } from '../../support/until.ts';

const s = await startServer({ after });

async function setup() {
  const a = await s.newAccount();
  const api = restClient(s.url, a.key);
  const group = (await api.post('/groups', { name: 'Readers' })).body.data;
  const sub = (
    await api.post('/subscribers', { email: 'cached@example.com', first_name: 'Ada', group_ids: [group.id] })
  ).body.data;
  const get = async () => (await api.get(`/subscribers/${sub.id}`)).body.data;
  assert.equal((await get()).first_name, 'Ada'); // cached from here on
  assert.equal((await get()).first_name, 'Ada');
  return { a, api, group, sub, get };
}

describe('GET /subscribers/{id} after changes (read cache)', () => {
  test('an update through the API shows on the very next GET', async () => {
    const { api, sub, get } = await setup();
    await api.put(`/subscribers/${sub.id}`, { first_name: 'Grace', custom_fields: {} });
    assert.equal((await get()).first_name, 'Grace');
  });

  test('a note added through the domain, a group renamed and then deleted: each shows at once', async () => {
    const { a, api, group, sub, get } = await setup();
    await notes.addNote(s.db, a.accountId, sub.id, { content: 'Called on Monday' });
    assert.deepEqual(
      (await get()).notes.map((n: any) => n.content),
      ['Called on Monday'],
    );
    await api.put(`/groups/${group.id}`, { name: 'Avid readers' });
    assert.deepEqual(
      (await get()).groups.map((g: any) => g.name),
      ['Avid readers'],
    );
    await api.delete(`/groups/${group.id}`);
    assert.deepEqual((await get()).groups, []);
  });

  test('a write inside a transaction shows after its commit, and a rolled-back one never', async () => {
    const { a, sub, get } = await setup();
    await s.db
      .transaction()
      .execute(async (trx) => {
        await trx
          .updateTable('subscribers')
          .set({ last_name: 'Lovelace' })
          .where('account_id', '=', a.accountId)
          .where('id', '=', sub.id)
          .execute();
        throw new Error('roll back');
      })
      .catch(() => {});
    assert.equal((await get()).last_name, null);
    await s.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('subscribers')
        .set({ last_name: 'Byron' })
        .where('account_id', '=', a.accountId)
        .where('id', '=', sub.id)
        .execute();
    });
    assert.equal((await get()).last_name, 'Byron');
  });

  test('a deleted subscriber is a 404 on the next GET', async () => {
    const { api, sub } = await setup();
    await api.delete(`/subscribers/${sub.id}`);
    assert.equal((await api.get(`/subscribers/${sub.id}`)).status, 404);
  });

  test('the cache is per account: another account asking for the same id gets a 404', async () => {
    const { sub } = await setup();
    const other = restClient(s.url, (await s.newAccount()).key);
    assert.equal((await other.get(`/subscribers/${sub.id}`)).status, 404);
  });

  test(
    'PostgreSQL: a write by another process (another connection) shows within a moment',
    { skip: backend !== 'postgres' },
    async () => {
      const { a, sub, get } = await setup();
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(s.db);
      const other = new pg.Client({
        connectionString: process.env.TEST_DATABASE_URL,
        options: `-c search_path=${rows[0]!.schema},public`,
      });
      await other.connect();
      try {
        await other.query('update subscribers set first_name = $1 where account_id = $2 and id = $3', [
          'Elsewhere',
          a.accountId,
          sub.id,
        ]);
      } finally {
        await other.end();
      }
      assert.equal(await until(async () => (await get()).first_name === 'Elsewhere', 3000), true);
    },
  );

  test(
    'PostgreSQL: the full-subscriber read is a named statement on its connection',
    { skip: backend !== 'postgres' },
    async () => {
      const { a, sub } = await setup();
      const names = await s.db.transaction().execute(async (trx) => {
        assert.equal((await repo.findFull(trx, a.accountId, { id: sub.id }))?.email, 'cached@example.com');
        assert.equal((await repo.findFull(trx, a.accountId, { email: 'CACHED@example.com' }))?.id, sub.id);
        return (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(trx)).rows.map(
          (r) => r.statement,
        );
      });
      const full = names.filter((text) => text.startsWith('select "s".*'));
      assert.equal(full.length, 2, names.join('\n')); // by id and by email
    },
  );
});
