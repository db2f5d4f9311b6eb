// A signup form looked after in the dashboard, in a real browser: edit its groups and turn on double
// opt-in, copy the embed snippet, submit the hosted page and see "Check your inbox", then deactivate it
// (its page goes offline). The confirmation mail and the unsubscribe page are opened at phone width too.
// With SCREENSHOTS=1 it writes docs/screenshots/form-editor.png, form-check-inbox.png,
// confirmation-mail.png and unsubscribe.png; none may scroll sideways at 390 px.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import * as forms from '../../src/domain/forms/forms.ts';
import * as groups from '../../src/domain/subscribers/groups.ts';
import { unsubscribeToken } from '../../src/mail/unsubscribe.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, launchChromium } from '../support/browser.ts';

declare const document: any;
declare const navigator: any;

describe('the form editor and the public pages (Chromium)', { skip: browserSkip() }, () => {
  let s: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let stopServer: (() => Promise<void>) | undefined;
  let accountId = '';

  async function phoneWidth(url: string, shot?: string) {
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(url);
    await phone.locator('h1').first().waitFor();
    await assertFitsPhone(phone, url);
    if (SHOTS && shot) await phone.screenshot({ path: join(SHOTS, shot), fullPage: true });
    await phone.close();
  }

  before(async () => {
    [s, browser] = await Promise.all([startServer({ after: (fn: any) => void (stopServer = fn) }), launchChromium()]);
    s.config.publicUrl = s.url; // PORT 0: the hosted URL the page shows must be the port we got
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    accountId = await createOwner(page, s);
  });
  after(async () => {
    await browser?.close();
    await stopServer?.();
  });

  test('edit the groups and double opt-in, copy the snippet, "Check your inbox" after a submit, deactivate', async () => {
    const readers = await groups.create(s.db, accountId, { name: 'Readers' });
    const vip = await groups.create(s.db, accountId, { name: 'VIP' });
    const form = await forms.create(s.db, accountId, { name: 'Website signup', group_ids: [readers.id] });

    await page.getByRole('link', { name: 'Forms' }).click();
    await page.getByRole('link', { name: 'Website signup' }).click();
    await page.getByRole('heading', { name: 'Website signup' }).waitFor();
    const editor = page.locator('form', { has: page.getByRole('heading', { name: 'Edit form' }) });
    assert.equal(await editor.getByRole('checkbox', { name: 'Readers' }).isChecked(), true);
    await editor.getByRole('checkbox', { name: 'Readers' }).uncheck();
    await editor.getByRole('checkbox', { name: 'VIP' }).check();
    await editor.getByRole('checkbox', { name: /Double opt-in/ }).check();
    await editor.getByLabel('Redirect after signup').fill('not a url');
    await editor.getByRole('button', { name: 'Save form' }).click();
    await editor.getByText('redirect_url must be an absolute http(s) URL').waitFor();
    await editor.getByLabel('Redirect after signup').fill('');
    await editor.getByRole('button', { name: 'Save form' }).click();
    await page.getByText('Form saved.').waitFor();
    const saved = await forms.get(s.db, accountId, form.id);
    assert.deepEqual([saved.group_ids, saved.double_opt_in, saved.redirect_url], [[vip.id], true, null]);
    await page.getByText('Groups').locator('xpath=following-sibling::dd[1]').getByText('VIP').waitFor();

    await page.getByRole('button', { name: 'Copy the embed snippet' }).click();
    await page.getByRole('button', { name: 'Copied the embed snippet' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(copied, new RegExp(`<form class="mg-form" method="post" action="${s.url}/f/${form.id}"`));

    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'form-editor.png'), fullPage: true });
    await phoneWidth(page.url());

    // the hosted page, as a visitor: double opt-in now, so the answer is "Check your inbox"
    const visitor = await context.newPage();
    await visitor.setViewportSize({ width: 390, height: 844 });
    await visitor.goto(`${s.url}/f/${form.id}`);
    await visitor.getByLabel('Email').fill('grace@example.com');
    await visitor.getByRole('button', { name: 'Subscribe' }).click();
    await visitor.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await visitor.getByText('Please open the link in it to confirm your subscription').waitFor();
    assert.equal(await visitor.title(), 'Check your inbox');
    if (SHOTS) await visitor.screenshot({ path: join(SHOTS, 'form-check-inbox.png'), fullPage: true });
    // the confirmation mail went to the outbox (no SMTP_URL): its HTML on a phone-wide screen
    const mail = await s.db
      .selectFrom('outbox')
      .select(['subject', 'html'])
      .where('to_addr', 'like', '%grace@example.com%')
      .executeTakeFirstOrThrow();
    assert.equal(mail.subject, 'Please confirm your subscription');
    await visitor.setContent(mail.html!);
    await visitor.getByRole('link', { name: 'Confirm my subscription' }).waitFor();
    const mailWidth = await visitor.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(mailWidth <= 390, `the confirmation mail is ${mailWidth} px wide at 390 px`);
    if (SHOTS) await visitor.screenshot({ path: join(SHOTS, 'confirmation-mail.png'), fullPage: true });
    await visitor.close();

    await page.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByText('The form is deactivated').waitFor();
    await page.getByRole('button', { name: 'Reactivate' }).waitFor();
    assert.equal((await forms.get(s.db, accountId, form.id)).active, false);
    assert.equal((await fetch(`${s.url}/f/${form.id}`)).status, 404, 'an inactive form is offline');
  });

  test('the unsubscribe page reads well on a phone and unsubscribes with one button', async () => {
    const sub = await s.db
      .insertInto('subscribers')
      .values({ account_id: accountId, email: 'ada.lovelace@example.com', custom_fields: '{}' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const url = `${s.url}/u/${unsubscribeToken(s.config.secret, accountId, sub.id)}`;
    await phoneWidth(url, 'unsubscribe.png');
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(url);
    await phone.getByRole('button', { name: 'Unsubscribe' }).click();
    await phone.getByRole('heading', { name: 'Unsubscribed' }).waitFor();
    await phone.close();
    const row = await s.db
      .selectFrom('subscribers')
      .select('status')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.status, 'unsubscribed');
  });
});
