// The import history as a domain list: the one page rule (paging.ts) and the Page shape every face
// formats, newest first, own account only, uploads still staging left out.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Validation } from '../../../src/domain/errors.ts';
import * as imports from '../../../src/domain/imports/imports.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const noQueue = { send: async () => undefined };
const csv = (text: string) => Readable.from([Buffer.from(text)]);

async function started(accountId: string, name: string) {
  return imports.start(db, noQueue, await imports.stageFile(db, accountId, csv('email\nada@example.com\n'), name), []);
}

describe('imports.list', () => {
  test('returns a Page of jobs, newest first; a staging upload and other accounts are not in it', async () => {
    const accountId = (await accounts.create(db, { name: 'Imports' }, 1000)).id;
    const other = (await accounts.create(db, { name: 'Other' }, 1000)).id;
    const first = await started(accountId, 'first.csv');
    const second = await started(accountId, 'second.csv');
    await started(other, 'theirs.csv');
    await imports.stageFile(db, accountId, csv('email\nbob@example.com\n'), 'staging.csv');

    const page = await imports.list(db, accountId, { per_page: 1 });
    assert.deepEqual(Object.keys(page), ['items', 'page', 'per_page', 'total']);
    assert.deepEqual([page.page, page.per_page, page.total], [1, 1, 2]);
    assert.deepEqual(
      page.items.map((j) => j.job_id),
      [second.job_id],
    );
    assert.deepEqual(
      (await imports.list(db, accountId, { page: 2, per_page: 1 })).items.map((j) => j.file_name),
      ['first.csv'],
    );
    assert.equal(first.file_name, 'first.csv');
  });

  test('follows the one page rule: per_page clamped to 100, a bad page refused with a field map', async () => {
    const accountId = (await accounts.create(db, { name: 'Empty' }, 1000)).id;
    assert.deepEqual(await imports.list(db, accountId, { per_page: 500 }), {
      items: [],
      page: 1,
      per_page: 100,
      total: 0,
    });
    await assert.rejects(
      imports.list(db, accountId, { page: 0 }),
      (e: unknown) => e instanceof Validation && e.message === 'page: page must be a positive integer',
    );
  });
});
