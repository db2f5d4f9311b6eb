// Custom-field definitions and the coercion of values to their type (values coerced to the
// type or rejected per field). coerceValue is the rule every face and the import share.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { Conflict, NotFound, Validation } from '../../../src/domain/errors.ts';
import * as fields from '../../../src/domain/subscribers/fields.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

const newAccount = async () => (await accounts.create(db, { name: 'Fields' }, 1000)).id;

describe('fields domain', () => {
  test('coerceValue: each type accepts what it can represent and refuses the rest (undefined); null clears', () => {
    const cases: [fields.FieldType, unknown, unknown][] = [
      ['text', 'x', 'x'],
      ['text', 5, '5'],
      ['text', true, 'true'],
      ['text', { a: 1 }, undefined],
      ['text', [], undefined],
      ['number', 5, 5],
      ['number', ' 4.5 ', 4.5],
      ['number', '', null],
      ['number', 'x', undefined],
      ['number', Infinity, undefined],
      ['number', true, undefined],
      ['boolean', true, true],
      ['boolean', 'YES', true],
      ['boolean', '0', false],
      ['boolean', 'no', false],
      ['boolean', '', null],
      ['boolean', 'maybe', undefined],
      ['boolean', 2, undefined],
      ['date', '2024-02-29', '2024-02-29'],
      ['date', '2024-02-29T10:00:00Z', '2024-02-29'],
      ['date', '2023-02-29', undefined],
      ['date', '29/02/2024', undefined],
      ['date', 20240229, undefined],
      ['date', '', null],
      ['text', null, null],
      ['number', null, null],
    ];
    for (const [type, value, expected] of cases)
      assert.deepEqual(fields.coerceValue(type, value), expected, `${type} ${JSON.stringify(value)}`);
  });

  test('coerceWith names every unknown key and every bad value in one Validation', () => {
    const defs = new Map<string, fields.FieldType>([
      ['age', 'number'],
      ['vip', 'boolean'],
    ]);
    assert.deepEqual(fields.coerceWith(defs, { age: '3', vip: 'true' }), { age: 3, vip: true });
    try {
      fields.coerceWith(defs, { age: 'x', shoe: 1, vip: '\u0000' });
      assert.fail('expected Validation');
    } catch (err) {
      assert.ok(err instanceof Validation);
      assert.deepEqual(err.fields, {
        'custom_fields.age': ['Must be a number'],
        'custom_fields.shoe': ['Unknown custom field: shoe'],
        'custom_fields.vip': ['Must not contain NUL, control characters or unpaired surrogates'],
      });
      assert.equal(err.message, 'custom_fields.age: Must be a number');
    }
  });

  test('create lower-cases the key, refuses reserved keys and duplicates; definitions are per account', async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const f = await fields.create(db, acc, { key: ' Company ', type: 'text' });
    assert.deepEqual([f.key, f.name, f.type], ['company', 'company', 'text']);
    await assert.rejects(fields.create(db, acc, { key: 'company' }), Conflict);
    await assert.rejects(fields.create(db, acc, { key: 'email' }), Validation);
    await assert.rejects(fields.create(db, acc, { key: 'x', type: 'json' as any }), Validation);
    assert.equal((await fields.create(db, other, { key: 'company' })).key, 'company');
    assert.deepEqual([...(await fields.definitions(db, acc)).entries()], [['company', 'text']]);
  });

  test("remove deletes the definition and every value of it; another account's field is NotFound", async () => {
    const acc = await newAccount();
    const other = await newAccount();
    const company = await fields.create(db, acc, { key: 'company' });
    await fields.create(db, acc, { key: 'city' });
    const sub = await subscribers.create(db, acc, {
      email: 'f@example.com',
      custom_fields: { company: 'AE', city: 'London' },
    });
    await assert.rejects(fields.remove(db, other, company.id), NotFound);
    await fields.remove(db, acc, company.id);
    assert.deepEqual((await subscribers.get(db, acc, sub.id)).custom_fields, { city: 'London' });
    await assert.rejects(fields.remove(db, acc, company.id), NotFound);
  });
});
