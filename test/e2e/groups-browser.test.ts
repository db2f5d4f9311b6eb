// Groups and bulk actions in a real browser: create a group, add two checked subscribers to it through
// the bulk bar and its confirmation, see the counts on the groups page, select all 30 matching the
// filter and unsubscribe them in one operation, export with the filter, and delete the group after a
// confirmation that names its member count.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SHOTS, assertPageFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

describe('groups and bulk actions in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1280, height: 860 } });

  test('create a group, bulk-add two, select all matching and unsubscribe, export, delete the group', async () => {
    const { s, page } = session;
    const accountId = await createOwner(page, s);
    const rows = Array.from({ length: 30 }, (_, i) => ({
      account_id: accountId,
      email: `reader${String(i).padStart(2, '0')}@example.com`,
      custom_fields: '{}',
    }));
    await s.db.insertInto('subscribers').values(rows).execute();

    await page.getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { name: 'Groups' }).waitFor();
    // a message goes away once its field is edited, and an unchanged second try shows it again
    const nameError = page.locator('.field-error');
    await page.getByRole('button', { name: 'Create group' }).click();
    await nameError.waitFor();
    assert.doesNotMatch(await nameError.innerText(), /^name:/, 'no wire key in the message');
    await page.getByLabel('New group').fill('Rea');
    await nameError.waitFor({ state: 'detached' });
    await page.getByLabel('New group').fill('');
    await page.getByRole('button', { name: 'Create group' }).click();
    await nameError.waitFor();
    await page.getByLabel('New group').fill('Readers');
    await nameError.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('cell', { name: 'Readers', exact: true }).waitFor();

    await page.getByRole('link', { name: 'Subscribers' }).click();
    const boxes = page.getByRole('checkbox', { name: /^Select reader/ });
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByText('2 subscribers selected.').waitFor();
    await page.getByLabel('Group', { exact: true }).selectOption({ label: 'Readers' });
    await page.getByRole('button', { name: 'Apply…' }).click();
    await page.getByText('Add 2 subscribers to “Readers”?').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Add to group: 2 subscribers changed.').waitFor();

    await page.getByRole('link', { name: 'Groups' }).click();
    // the list may first show its cached counts, then the refetched ones: wait for the new counts
    const row = page.getByRole('row', { name: /^Readers 2 2 / });
    await row.waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'groups.png'), fullPage: true });
    await assertPageFitsPhone(page, 'groups');
    await row.getByRole('link', { name: 'Members of Readers' }).click();
    await page.getByText('2 subscribers', { exact: true }).waitFor();

    await page.getByRole('link', { name: 'Show every subscriber' }).click();
    await page.getByText('30 subscribers', { exact: true }).waitFor();
    await page.getByLabel('Select every subscriber on this page').check();
    await page.getByRole('button', { name: 'Select all 30 subscribers matching the filter' }).click();
    await page.getByText('All 30 subscribers matching the filter are selected.').waitFor();
    await page.getByLabel('Bulk action', { exact: true }).selectOption('unsubscribe');
    await page.getByRole('button', { name: 'Apply…' }).click();
    await page.getByText('Unsubscribe 30 subscribers?').waitFor();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Unsubscribe: 30 subscribers changed.').waitFor();
    const statuses = await s.db
      .selectFrom('subscribers')
      .select('status')
      .distinct()
      .where('account_id', '=', accountId)
      .execute();
    assert.deepEqual(statuses, [{ status: 'unsubscribed' }]);

    await page.getByLabel('Search', { exact: true }).fill('reader0');
    await page.getByRole('button', { name: 'Search' }).click();
    // the search reaches the URL (and the link) after the click returns: wait for the link to follow
    const href = '/app/api/subscribers/export?search=reader0';
    await page.locator(`a[href="${href}"]`, { hasText: 'Export CSV' }).waitFor();
    const csv = await page.evaluate((u) => fetch(u).then((r) => r.text()), href);
    assert.equal(csv.trimEnd().split('\r\n').length, 11);

    await page.getByRole('link', { name: 'Groups' }).click();
    await page
      .getByRole('row', { name: /Readers/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('2 subscribers will leave this group.').waitFor();
    await page.getByRole('button', { name: 'Delete group' }).click();
    await page.getByText('No groups yet.').waitFor();
  });
});
