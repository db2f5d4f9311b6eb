// Subscribers, custom fields and imports in a real browser: create a custom field in Settings, page and
// search the list with the state kept in the URL (reload, jump to a page), edit a subscriber's name, custom
// field and groups (a field error next to its field first) and see it saved after a reload, and the import
// page's column mapping for a chosen file. With SCREENSHOTS=1 it writes docs/screenshots/ (subscriber,
// subscribers, fields, import-mapping, and subscriber at 390 px, which must not scroll sideways).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { type Page } from 'playwright-core';
import * as fields from '../../src/domain/subscribers/fields.ts';
import * as groups from '../../src/domain/subscribers/groups.ts';
import type { TestServer } from '../support/server.ts';
import {
  SHOTS,
  assertFitsPhone,
  assertPageFitsPhone,
  browserSkip,
  createOwner,
  dashboardInBrowser,
} from '../support/browser.ts';

describe('subscribers, custom fields and imports in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1280, height: 860 }, phone: true });
  let s: TestServer;
  let page: Page;
  let phone: Page;
  before(() => void ({ s, page, phone } = session));

  async function shoot(name: string, target: Page = page) {
    if (SHOTS) await target.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  }

  test('custom field in Settings, list state in the URL, edit a subscriber, import mapping', async () => {
    const accountId = await createOwner(page, s);
    await fields.create(s.db, accountId, { key: 'company', name: 'Company', type: 'text' });
    await groups.create(s.db, accountId, { name: 'Readers' });
    const vip = await groups.create(s.db, accountId, { name: 'VIP' });
    await s.db
      .insertInto('subscribers')
      .values(
        Array.from({ length: 30 }, (_, i) => ({
          account_id: accountId,
          email: `reader${String(i).padStart(2, '0')}@example.com`,
          custom_fields: '{}',
          source: 'import',
          created_at: new Date(Date.UTC(2026, 0, 1, 0, i)),
        })),
      )
      .execute();

    // Settings → Custom fields: create one
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.locator('#custom-fields');
    await section.getByLabel('Key', { exact: true }).fill('plan');
    await section.getByLabel('Name', { exact: true }).fill('Plan');
    await section.getByLabel('Type', { exact: true }).selectOption('number');
    await section.getByRole('button', { name: 'Create field' }).click();
    await section.getByRole('row', { name: / plan Number / }).waitFor();
    if (SHOTS) await section.screenshot({ path: join(SHOTS, 'fields.png') });
    await section.getByLabel('Key', { exact: true }).fill('1x');
    await section.getByRole('button', { name: 'Create field' }).click();
    await section.getByText('Key must start with a letter').waitFor();

    // the list: search and page live in the URL, survive a reload, and a page number can be typed
    await page.getByRole('link', { name: 'Subscribers' }).click();
    await page.getByLabel('Search', { exact: true }).fill('reader');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('30 subscribers', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('link', { name: 'reader04@example.com' }).waitFor();
    assert.match(page.url(), /[?&]search=reader(&|$)/);
    assert.match(page.url(), /[?&]page=2(&|$)/);
    await page.reload();
    await page.getByRole('link', { name: 'reader04@example.com' }).waitFor();
    assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'reader');
    assert.equal(
      await page
        .getByRole('row', { name: /reader04@example\.com/ })
        .getByText('import')
        .count(),
      1,
    );
    await page.getByLabel('Go to page').fill('1');
    await page.getByRole('button', { name: 'Go', exact: true }).click();
    await page.getByRole('link', { name: 'reader29@example.com' }).waitFor();
    assert.doesNotMatch(page.url(), /page=/);
    await shoot('subscribers');

    // adding one: email, name, a custom field and a group in one dialog, then its page shows them all
    await page.getByRole('button', { name: 'Add subscriber' }).click();
    const add = page.locator('form', { has: page.getByRole('heading', { name: 'Add a subscriber' }) });
    await add.getByLabel('Email').fill('new@example.com');
    await add.getByLabel('First name').fill('Nia');
    await add.getByLabel('Company').fill('Acme Teas');
    await add.getByRole('checkbox', { name: 'VIP' }).check();
    await add.getByRole('button', { name: 'Add subscriber' }).click();
    await page.getByRole('heading', { name: 'Edit subscriber' }).waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'new@example.com');
    assert.equal(await page.getByLabel('Company').inputValue(), 'Acme Teas');
    assert.equal(await page.getByRole('checkbox', { name: 'VIP' }).isChecked(), true);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Subscribers' }).click();

    // one subscriber: a field error next to its field, then name, custom field and groups saved together
    await page.getByRole('link', { name: 'reader29@example.com' }).click();
    await page.getByRole('heading', { name: 'Edit subscriber' }).waitFor();
    await page.getByLabel('Email').fill('not an email');
    await page.getByLabel('First name').fill('Grace');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#sub-email-error', { hasText: 'A valid email address is required' }).waitFor();
    assert.equal(
      (
        await s.db
          .selectFrom('subscribers')
          .select('first_name')
          .where('email', '=', 'reader29@example.com')
          .executeTakeFirstOrThrow()
      ).first_name,
      null,
    );
    await page.getByLabel('Email').fill('grace@example.com');
    assert.equal(await page.locator('#sub-email-error').count(), 0);
    await page.getByLabel('Company').fill('US Navy');
    await page.getByLabel('Plan').fill('3');
    await page.getByRole('checkbox', { name: 'VIP' }).check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'grace@example.com' }).waitFor();
    assert.equal(await page.getByLabel('First name').inputValue(), 'Grace');
    assert.equal(await page.getByLabel('Company').inputValue(), 'US Navy');
    assert.equal(await page.getByRole('checkbox', { name: 'VIP' }).isChecked(), true);
    await page.getByRole('cell', { name: 'Added to group “VIP”' }).waitFor();
    const row = await s.db
      .selectFrom('subscribers')
      .select(['first_name', 'custom_fields'])
      .where('email', '=', 'grace@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { first_name: 'Grace', custom_fields: { company: 'US Navy', plan: 3 } });
    const member = await s.db.selectFrom('subscriber_groups').select('group_id').executeTakeFirstOrThrow();
    assert.equal(member.group_id, vip.id);
    await shoot('subscriber');
    await phone.goto(page.url());
    await phone.getByRole('heading', { name: 'Edit subscriber' }).waitFor();
    await shoot('subscriber-390', phone);
    for (const [path, heading] of [
      [new URL(page.url()).pathname, 'Activity'],
      ['/app/subscribers?search=reader&page=2', 'Subscribers'],
      ['/app/settings', 'Custom fields'],
    ]) {
      if (path !== new URL(page.url()).pathname) await phone.goto(s.url + path);
      await phone.getByRole('heading', { name: heading, exact: true }).waitFor();
      await assertFitsPhone(phone, path);
    }

    // the import page: groups to add to, and the mapping of the chosen file's columns
    await page.getByRole('link', { name: 'Imports' }).click();
    await page.getByLabel('CSV file').setInputFiles({
      name: 'people.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('E-mail,First Name,Company,Shoe size\nkim@example.com,Kim,Acme,42\n'),
    });
    const mapping = page.getByRole('region', { name: 'Column mapping' });
    await mapping.getByText('kim@example.com').waitFor();
    assert.equal(await mapping.getByLabel('Import “E-mail” as').inputValue(), 'email');
    assert.equal(await mapping.getByLabel('Import “Company” as').inputValue(), 'custom_fields.company');
    assert.equal(await mapping.getByLabel('Import “Shoe size” as').inputValue(), 'skip');
    await page.getByRole('checkbox', { name: 'Readers' }).check();
    await shoot('import-mapping');
    await mapping.getByLabel('Import “Shoe size” as').selectOption({ label: 'New custom field…' });
    await mapping.getByRole('button', { name: 'Create field', exact: true }).click();
    await page.waitForFunction(
      () =>
        (globalThis as any).document.querySelector('select[aria-label="Import “Shoe size” as"]')?.value ===
        'custom_fields.shoe_size',
    );

    // the import runs with the ticked group and the field just created
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await assertPageFitsPhone(page, 'imports');
    const kim = await s.db
      .selectFrom('subscribers as s')
      .innerJoin('subscriber_groups as sg', 'sg.subscriber_id', 's.id')
      .innerJoin('groups as g', 'g.id', 'sg.group_id')
      .select(['s.custom_fields', 'g.name'])
      .where('s.email', '=', 'kim@example.com')
      .execute();
    assert.deepEqual(kim, [{ custom_fields: { company: 'Acme', shoe_size: '42' }, name: 'Readers' }]);
  });
});
