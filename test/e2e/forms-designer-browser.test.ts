// The forms designer, the pop-up on someone else's site, and the import mapping, in Chromium:
// design a double opt-in form (hostile text in every new field), put its pop-up script on a static page
// served from another origin, sign up in the pop-up (consent ticked, the browser's zone recorded), find
// the sign-up pending in the dashboard, resend, confirm through the mail's link; then import a CSV with
// one remapped column and one custom field created in the mapping. No script typed into a field runs on
// the hosted page, the pop-up, the site or the dashboard. With SCREENSHOTS=1 it writes
// docs/screenshots/form-designer*.png, form-popup*.png and import-mapping-editor*.png (1366 and 390 px).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import * as forms from '../../src/domain/forms/forms.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

declare const window: any;
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

describe('forms designer, pop-up and import mapping (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ phone: true, viewport: { width: 1366, height: 900 } });
  let site: Server | undefined;
  after(async () => void (await new Promise((r) => site?.close(r))));

  const noScriptRan = async (page: Page, where: string) =>
    assert.equal(await page.evaluate(() => window.__xss), undefined, `a typed script ran on ${where}`);
  const shoot = async (page: Page, name: string) => {
    if (!SHOTS) return;
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  test('designer → pop-up on another site → pending → resend → confirmed, with consent and zone kept', async () => {
    const { s, page, phone, browser } = session;
    const dialogs: string[] = [];
    page.on('dialog', (d) => void dialogs.push(d.message()));
    const accountId = await createOwner(page, s);
    s.config.publicUrl = s.url;
    const form = await forms.create(s.db, accountId, {
      name: 'Garden letter',
      double_opt_in: true,
      fields: [{ key: 'first_name' }],
    });

    await page.goto(`${s.url}/app/forms/${form.id}`);
    const designer = page.getByRole('form', { name: 'Design' });
    await designer.getByLabel('Readable address').fill('garden-letter');
    await designer.getByLabel('Heading').fill(`Garden news ${XSS}`);
    await designer.getByLabel('Description').fill('One letter a month about what grows.');
    await designer.getByLabel('Label of first_name').fill(`Your name ${XSS}`);
    await designer.getByRole('button', { name: 'Move first_name up' }).click();
    await designer.getByLabel('Button text').fill('Count me in');
    await designer.getByLabel('Ask for consent with a checkbox').check();
    await designer.getByLabel('Consent text').fill(`Yes, mail me the letter ${XSS}`);
    await designer.getByLabel('“Check your inbox” message').fill(`Nearly there: check your inbox ${XSS}`);
    await designer.getByLabel('“Confirmed” message').fill('Welcome to the garden!');
    await designer.getByLabel('Seconds').fill('0');
    // the preview follows the inputs, as text
    const preview = designer.getByRole('complementary', { name: 'Preview' });
    await preview.getByText(`Garden news ${XSS}`).waitFor();
    await preview.getByText('Count me in').waitFor();
    await shoot(page, 'form-designer');
    await designer.getByRole('button', { name: 'Save design' }).click();
    await page.getByText('Design saved.').waitFor();
    await noScriptRan(page, 'the dashboard');
    await page.getByText(`${s.url}/f/garden-letter`).first().waitFor();
    if (SHOTS) {
      await phone.goto(page.url());
      await phone.getByRole('heading', { name: 'Design' }).waitFor();
      await assertFitsPhone(phone, 'the form designer');
      await shoot(phone, 'form-designer-phone');
    }
    const script = await page.getByLabel('Pop-up script', { exact: true }).inputValue();
    assert.match(script, /\/f\/garden-letter\/embed\.js/);

    // a static page on another origin (localhost is not 127.0.0.1) carrying only the script tag
    site = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          `<!doctype html><html><head><title>My garden site</title></head><body><h1>My garden site</h1><p>Roses.</p>${script}</body></html>`,
        ),
    );
    await new Promise<void>((r) => site!.listen(0, '127.0.0.1', r));
    const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
    const visitor = await browser.newContext({ timezoneId: 'Europe/Berlin', viewport: { width: 1366, height: 800 } });
    const visit = await visitor.newPage();
    visit.on('dialog', (d) => void dialogs.push(d.message()));
    await visit.goto(siteUrl);
    const popup = visit.frameLocator('[data-mailgrove-popup] iframe');
    await popup.getByRole('heading', { name: `Garden news ${XSS}` }).waitFor();
    await popup.getByLabel(`Your name ${XSS}`).fill('Rosa');
    await popup.getByLabel('Email').fill('rosa@example.com');
    await popup.getByLabel(`Yes, mail me the letter ${XSS}`).check();
    await shoot(visit, 'form-popup');
    await popup.getByRole('button', { name: 'Count me in' }).click();
    await popup.getByText(`Nearly there: check your inbox ${XSS}`).waitFor();
    await noScriptRan(visit, 'the site');
    assert.equal(await visit.frames()[1]!.evaluate(() => window.__xss), undefined, 'a typed script ran in the pop-up');
    if (SHOTS) {
      const small = await visitor.newPage();
      await small.setViewportSize({ width: 390, height: 844 });
      await small.goto(siteUrl);
      await small.frameLocator('[data-mailgrove-popup] iframe').getByLabel('Email').waitFor();
      await shoot(small, 'form-popup-phone');
    }
    const hosted = await visitor.newPage();
    await hosted.goto(`${s.url}/f/garden-letter`);
    await hosted.getByRole('heading', { name: `Garden news ${XSS}` }).waitFor();
    await noScriptRan(hosted, 'the hosted page');

    // pending in the dashboard's list → resend → the link in the mail confirms
    await page.goto(`${s.url}/app/forms`);
    const row = page.getByRole('table', { name: 'Sign-ups' }).getByRole('row', { name: /rosa@example\.com/ });
    await row.getByText('Garden letter').waitFor();
    await s.db
      .updateTable('pending_signups')
      .set({ last_sent_at: new Date(Date.now() - 120_000) })
      .execute();
    await row.getByRole('button', { name: 'Resend to rosa@example.com' }).click();
    await page.getByText('Confirmation sent again to rosa@example.com.').waitFor();
    const mails = await s.db
      .selectFrom('outbox')
      .select('text')
      .where('to_addr', '=', 'rosa@example.com')
      .orderBy('created_at')
      .execute();
    assert.equal(mails.length, 2);
    const link = /(http:\/\/[^\s"]+\/f\/confirm\/[A-Za-z0-9_\-.]+)/.exec(mails[1]!.text ?? '')![1]!;
    await hosted.goto(link);
    await hosted.getByText('Welcome to the garden!').waitFor();
    const rosa = await s.db
      .selectFrom('subscribers')
      .select(['id', 'status', 'first_name', 'time_zone'])
      .where('email', '=', 'rosa@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual([rosa.status, rosa.first_name, rosa.time_zone], ['active', 'Rosa', 'Europe/Berlin']);
    await page.goto(`${s.url}/app/subscribers/${rosa.id}`);
    await page.getByText(/Consent given on the form “Garden letter”/).waitFor();
    await noScriptRan(page, 'the subscriber page');
    assert.deepEqual(dialogs, []);
    await visitor.close();
  });

  test('import: one column remapped, one custom field created in the mapping', async () => {
    const { s, page, phone } = session;
    await page.goto(`${s.url}/app/imports`);
    await page.getByLabel('CSV file').setInputFiles({
      name: 'fair.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Mail,first_name,Shoe size\nkim@example.com,Kim,42\nlee@example.com,Lee,39\n'),
    });
    const mapping = page.getByRole('region', { name: 'Column mapping' });
    await mapping.getByText('kim@example.com · lee@example.com').waitFor();
    await mapping.getByLabel('Import “Mail” as').selectOption('email');
    await mapping.getByLabel('Import “Shoe size” as').selectOption({ label: 'New custom field…' });
    await mapping.getByLabel('Key').fill('shoe_size');
    await mapping.getByRole('button', { name: 'Create field', exact: true }).click();
    await page.waitForFunction(
      () =>
        (globalThis as any).document.querySelector('select[aria-label="Import “Shoe size” as"]')?.value ===
        'custom_fields.shoe_size',
    );
    await page.getByLabel('Consent or source note').fill('Signed the list at the garden fair');
    await shoot(page, 'import-mapping-editor');
    if (SHOTS) {
      await phone.goto(`${s.url}/app/imports`);
      await phone.getByLabel('CSV file').setInputFiles({
        name: 'fair.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('Mail,first_name,Shoe size\nkim@example.com,Kim,42\n'),
      });
      await phone.getByRole('region', { name: 'Column mapping' }).getByText('kim@example.com').waitFor();
      await assertFitsPhone(phone, 'the import mapping');
      await shoot(phone, 'import-mapping-editor-phone');
    }
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.locator('.badge', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
    await page.getByText('Signed the list at the garden fair').waitFor();
    const kim = await s.db
      .selectFrom('subscribers')
      .select(['first_name', 'custom_fields'])
      .where('email', '=', 'kim@example.com')
      .executeTakeFirstOrThrow();
    assert.deepEqual(kim, { first_name: 'Kim', custom_fields: { shoe_size: '42' } });
  });
});
