// The dashboard in a real browser: create the owner account,
// sign in, create an API key and read it off the page, use it on REST (test-auth names it), revoke it in
// the page (REST then answers 401), and see the import history after a CSV upload. Screenshots go to a
// temp dir (printed as a diagnostic) for a person to look at; they are not committed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WEB_DIST } from '../../src/http/dashboard/spa.ts';
import { assertPageFitsPhone } from '../support/browser.ts';
import { restClient, startServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);

describe(
  'dashboard in Chromium',
  { skip: haveChromium ? false : 'chromium not installed (apt-get install -y chromium)' },
  () => {
    let s: TestServer;
    let browser: Browser;
    let page: Page;
    const shots = mkdtempSync(join(tmpdir(), 'mailgrove-e2e-'));
    const owner = {
      account: 'Acme Newsletters',
      name: 'Ada Lovelace',
      email: 'ada@acme.test',
      password: 'analytical engine',
    };

    before(async () => {
      if (!existsSync(join(WEB_DIST, 'index.html'))) {
        const built = spawnSync(
          process.execPath,
          ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts'],
          { stdio: 'inherit' },
        );
        assert.equal(built.status, 0, 'the dashboard build failed');
      }
      // the server's cleanup runs in this suite's after(), not at the end of this hook
      s = await startServer({ after: (fn: any) => void (stopServer = fn) });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
        ],
      });
      page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
      page.setDefaultTimeout(15_000);
    });
    let stopServer: (() => Promise<void>) | undefined;
    after(async () => {
      await browser?.close();
      await stopServer?.();
    });

    test('first visit: create the owner account, sign out, sign in', async (t) => {
      await page.goto(s.url + '/');
      await page.getByRole('heading', { name: 'Create the owner account' }).waitFor();
      await page.screenshot({ path: join(shots, '1-create-owner.png') });
      await page.getByLabel('Account name').fill(owner.account);
      await page.getByLabel('Your name').fill(owner.name);
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByRole('button', { name: 'Create the owner account' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      assert.equal(await page.locator('.account-name').textContent(), owner.account);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill('wrong password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Invalid email or password' }).waitFor();
      await page.getByLabel('Password').fill(owner.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Overview' }).waitFor();
      await page.screenshot({ path: join(shots, '2-overview.png') });
      t.diagnostic(`screenshots in ${shots}`);
    });

    test('create a key, read it from the page, use it on REST; revoke it in the page → 401', async () => {
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'Create a key' }).waitFor();
      await page.getByRole('button', { name: 'Create key' }).click(); // no name yet
      await page.getByText('Name is required').first().waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Browser-made key');
      // nothing is granted until ticked
      assert.equal(await page.getByLabel('Full access').isChecked(), false);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByText('Choose at least one permission').first().waitFor();
      await page.getByLabel('Full access').check();
      await page.getByRole('button', { name: 'Create key' }).click();
      const input = page.getByLabel('New API key');
      await input.waitFor();
      const key = await input.inputValue();
      assert.match(key, /^mailgrove_[0-9a-f]{32}$/);
      await page.getByText('It is shown only once').waitFor();
      await page.screenshot({ path: join(shots, '3-key-created.png'), fullPage: true });

      const rest = restClient(s.url, key);
      const ok = await rest.get('/test-auth');
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.api_key_name, 'Browser-made key');
      assert.match(ok.body.data.idp_user_id, /^local\|/);

      await page.getByRole('button', { name: 'I have stored the key' }).click();
      assert.equal(await page.getByLabel('New API key').count(), 0, 'the raw key is gone from the page');
      await page.getByRole('button', { name: 'Revoke Browser-made key' }).click();
      await page.getByRole('button', { name: 'Yes, revoke' }).click();
      await page.locator('.badge-bad', { hasText: 'Revoked' }).waitFor();
      await page.screenshot({ path: join(shots, '4-key-revoked.png'), fullPage: true });
      await assertPageFitsPhone(page, 'API keys');
      const revoked = await rest.get('/test-auth');
      assert.equal(revoked.status, 401);
    });

    test('upload a CSV in the page; the import history shows the finished job', async () => {
      await page.getByRole('link', { name: 'Imports' }).click();
      await page.getByRole('heading', { name: 'Import subscribers from CSV' }).waitFor();
      await page.getByLabel('CSV file').setInputFiles({
        name: 'people.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('email,first_name\nada@example.com,Ada\ngrace@example.com,Grace\nnot-an-email,X\n'),
      });
      await page.getByRole('button', { name: 'Start import' }).click();
      await page.getByRole('heading', { name: 'people.csv' }).waitFor();
      await page.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 60_000 });
      await page.getByText('Import completed: 2 created, 0 updated, 1 failed').waitFor();
      await page.screenshot({ path: join(shots, '5-import.png'), fullPage: true });
      await page.getByRole('link', { name: '← Imports' }).click();
      const row = page
        .getByRole('table', { name: 'Import history' })
        .getByRole('row')
        .filter({ hasText: 'people.csv' });
      await row.waitFor();
      assert.match((await row.textContent())!, /completed/);
      await page.screenshot({ path: join(shots, '6-import-history.png'), fullPage: true });

      await page.getByRole('link', { name: 'Subscribers' }).click();
      await page.getByRole('link', { name: 'grace@example.com' }).click();
      await page.getByLabel('Add a note').fill('Prefers the monthly digest');
      await page.getByRole('button', { name: 'Save note' }).click();
      await page.locator('.notes').getByText('Prefers the monthly digest').waitFor();
      await page.screenshot({ path: join(shots, '7-subscriber.png'), fullPage: true });
    });

    test('segments and forms are created in the dashboard', async () => {
      await page.getByRole('link', { name: 'Segments' }).click();
      await page.getByLabel('Segment name').fill('Active people');
      const rule = page.getByRole('group', { name: 'Rule 1' });
      await rule.getByLabel('Field').selectOption('status');
      await rule.getByLabel('Operator').selectOption('eq');
      await rule.getByLabel('Value').selectOption('active');
      await page.getByRole('button', { name: 'Save segment' }).click();
      const row = page.getByRole('table', { name: 'Segments' }).getByRole('row').filter({ hasText: 'Active people' });
      await row.waitFor();
      assert.match((await row.textContent())!, /Active people2/, 'two active subscribers from the import');
      await page.screenshot({ path: join(shots, '10-segments.png'), fullPage: true });

      await page.getByRole('link', { name: 'Forms' }).click();
      await page.getByLabel('Form name').fill('Website signup');
      await page.getByRole('button', { name: 'Create form' }).click();
      await page.getByRole('heading', { name: 'Website signup' }).waitFor();
      const hosted = await page.locator('a.mono').textContent();
      assert.match(hosted!, /\/f\/[0-9a-f-]{36}$/);
      const form = await fetch(hosted!.replace(s.config.publicUrl, s.url));
      assert.equal(form.status, 200, 'the hosted form page answers');
      await page.screenshot({ path: join(shots, '11-form.png'), fullPage: true });
    });

    test('outbox: a captured message opens in the sandboxed frame; settings save', async () => {
      const account = await s.db
        .selectFrom('accounts')
        .select('id')
        .where('name', '=', owner.account)
        .executeTakeFirstOrThrow();
      await s.db
        .insertInto('outbox')
        .values({
          account_id: account.id,
          message_id: '<e2e@test>',
          from_addr: 'Acme <news@acme.test>',
          to_addr: 'grace@example.com',
          subject: 'Welcome aboard',
          html: '<h1 style="color:#166534">Hello Grace</h1><p>Thanks for subscribing.</p><script>document.body.innerHTML="pwned"</script>',
          text: 'Hello Grace',
          headers: '{}',
        })
        .execute();
      await page.getByRole('link', { name: 'Outbox' }).click();
      await page.getByRole('link', { name: 'Welcome aboard' }).click();
      const frame = page.frameLocator('iframe[title="Message HTML"]');
      await frame.getByText('Hello Grace').waitFor();
      assert.equal(await frame.getByText('pwned').count(), 0, 'scripts in a message do not run');
      await page.screenshot({ path: join(shots, '8-outbox.png'), fullPage: true });
      await assertPageFitsPhone(page, 'an outbox message');
      await page.getByRole('link', { name: '← Outbox' }).click();
      await page.getByRole('link', { name: 'Welcome aboard' }).waitFor();
      await assertPageFitsPhone(page, 'the outbox');
      // search finds a message by a word of its subject, and says when nothing matches
      const search = page.getByRole('search').getByRole('searchbox');
      await search.fill('ABOARD');
      await search.press('Enter');
      await page.getByRole('link', { name: 'Welcome aboard' }).waitFor();
      await search.fill('no-such-words');
      await search.press('Enter');
      await page.getByText('No captured message matches “no-such-words”.').waitFor();

      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Default sender email').fill('news@acme.test');
      await page.getByLabel('Track opens and clicks').uncheck();
      await page.getByLabel('Postal address', { exact: true }).fill('Acme Ltd\n1 Main Street\nSpringfield');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Settings saved.').waitFor();
      const row = await s.db
        .selectFrom('accounts')
        .select(['default_from_email', 'tracking_enabled', 'postal_address'])
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, {
        default_from_email: 'news@acme.test',
        tracking_enabled: false,
        postal_address: 'Acme Ltd\n1 Main Street\nSpringfield',
      });

      // the time zone is typed and searched; UTC stays choosable after another zone was saved
      const zone = page.getByLabel('Time zone');
      for (const [typed, saved] of [
        ['Europe/Berlin', 'Europe/Berlin'],
        ['UTC', 'UTC'],
      ]) {
        await zone.fill(typed);
        await page.getByRole('button', { name: 'Save settings' }).click();
        const stored = () =>
          s.db.selectFrom('accounts').select('timezone').where('id', '=', account.id).executeTakeFirstOrThrow();
        await until(`the time zone ${saved} saved`, async () => (await stored()).timezone === saved);
      }
      assert.equal(await page.locator('datalist option[value="UTC"]').count(), 1);
      await zone.fill('Nowhere/Land');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page
        .getByText(/must be an IANA time zone name/)
        .first()
        .waitFor();
      await page.screenshot({ path: join(shots, '9-settings.png'), fullPage: true });
    });

    test('on a phone the navigation folds under one Menu button that opens and follows a link', async () => {
      const phone = await page.context().newPage();
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(`${s.url}/app/outbox`);
      const nav = phone.getByRole('navigation', { name: 'Main' });
      const menu = nav.getByRole('button', { name: /Menu/ });
      await menu.waitFor();
      assert.match(await menu.innerText(), /Outbox/, 'the button names the page');
      assert.equal(await nav.getByRole('link', { name: 'Subscribers' }).isVisible(), false);
      assert.equal(await menu.getAttribute('aria-expanded'), 'false');
      await menu.click();
      assert.equal(await menu.getAttribute('aria-expanded'), 'true');
      await nav.getByRole('link', { name: 'Subscribers' }).click();
      await phone.getByRole('heading', { name: 'Subscribers' }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Outbox' }).isVisible(), false, 'folded again');
      await phone.screenshot({ path: join(shots, '10-phone-nav.png') });
      await phone.close();
    });
  },
);
