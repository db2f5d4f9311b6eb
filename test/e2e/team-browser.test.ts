// Settings → Team in a real browser: the owner changes a member's role from a select in the members
// table, the change is in the database and takes effect on the member's next request, and the owner's own
// row offers no select. With SCREENSHOTS=1 it writes docs/screenshots/team.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as users from '../../src/domain/accounts/users.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

declare const document: any;

describe('team roles in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser();

  test("an owner changes a member's role; the last owner's own row has no select", async () => {
    const { s, page } = session;
    const accountId = await createOwner(page, s);
    const grace = await users.addMember(
      s.db,
      accountId,
      { email: 'grace@acme.test', name: 'Grace', role: 'editor' },
      'oidc',
    );
    await users.addMember(s.db, accountId, { email: 'linus@acme.test', role: 'viewer' }, 'oidc');

    await page.getByRole('link', { name: 'Settings' }).click();
    const team = page.locator('.card', { has: page.getByRole('heading', { name: 'Team', exact: true }) });
    const select = team.getByLabel('Role of grace@acme.test');
    await select.waitFor();
    assert.equal(await select.inputValue(), 'editor');
    assert.equal(await team.getByLabel('Role of ada@acme.test').count(), 0, 'not your own role');
    await team
      .getByRole('row', { name: /ada@acme\.test/ })
      .getByText('(you)')
      .waitFor();

    // the answer to the change is held back: the select must show the choice while it is being saved
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    await page.route('**/app/api/members/*', async (route) => {
      if (route.request().method() === 'PUT') await held;
      await route.continue();
    });
    await select.selectOption('admin');
    await page.waitForFunction(
      (label) => document.querySelector(`select[aria-label="${label}"]`)?.value === 'admin',
      'Role of grace@acme.test',
      { timeout: 3000 },
    );
    answer();
    await team.getByText('grace@acme.test is now admin.').waitFor();
    await page.unroute('**/app/api/members/*');
    const role = await s.db
      .selectFrom('memberships')
      .select('role')
      .where('account_id', '=', accountId)
      .where('user_id', '=', grace.id)
      .executeTakeFirstOrThrow();
    assert.equal(role.role, 'admin');
    assert.equal(await select.inputValue(), 'admin');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 1280);

    if (SHOTS) {
      await team.scrollIntoViewIfNeeded();
      await team.screenshot({ path: join(SHOTS, 'team.png') });
      const phone = await page.context().newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(page.url());
      await phone.getByLabel('Role of grace@acme.test').waitFor();
      await assertFitsPhone(phone, 'settings');
      await phone.close();
    }
  });
});
