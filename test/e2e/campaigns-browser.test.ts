// A marketer's campaign in a real browser, with real SMTP to a sink: write an MJML campaign from a starter
// template, see a field error next to its field, send a test, send to a group of 50 and watch the progress
// reach "sent", then open and click from a received message and find both in the report with the link's
// count. With SCREENSHOTS=1 it also writes docs/screenshots/ (desktop and 390 px) for docs/dashboard.md.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { type Page } from 'playwright-core';
import { seedAudience } from '../support/campaigns.ts';
import type { TestServer } from '../support/server.ts';
import type { Sink } from '../support/smtpSink.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

// the functions given to page.evaluate run in the browser, where there is a document
declare const document: any;

describe('campaigns in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1280, height: 860 }, phone: true, sink: true });
  let s: TestServer;
  let sink: Sink;
  let page: Page;
  let phone: Page;
  before(() => {
    ({ s, sink, page, phone } = session);
    s.config.publicUrl = s.url; // PORT 0: tracking links must point at the port we got
  });
  let accountId = '';

  /** What the desktop page shows, at 390 px too (assertFitsPhone); with SCREENSHOTS=1, pictures of both. */
  async function shoot(name: string) {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    await phone.goto(page.url());
    await phone.locator('h1').first().waitFor();
    await phone.waitForTimeout(800);
    await assertFitsPhone(phone, name);
    if (SHOTS) await phone.screenshot({ path: join(SHOTS, `${name}-390.png`), fullPage: true });
  }

  test('write from a starter template, a field error, a test send, send to 50, progress, opens and clicks in the report', async () => {
    accountId = await createOwner(page, s, 'Acme Newsletters');
    await s.db
      .updateTable('accounts')
      .set({ default_from_name: 'Acme News', default_from_email: 'news@acme.test' })
      .where('id', '=', accountId)
      .execute();
    await seedAudience(s.db, accountId, 50, { group: 'Readers', domain: 'readers.test' });

    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByText('No campaigns yet').waitFor();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor();
    assert.equal(await page.getByLabel('Sender email').inputValue(), 'news@acme.test', 'account default filled in');

    // bad input: the message sits next to the field and goes when the field is fixed
    await page.getByLabel('Campaign name').fill('June newsletter');
    await page.getByLabel('Sender email').fill('not an address');
    await page.getByRole('button', { name: 'Create draft' }).click();
    const senderError = page.locator('#f-from_email-error');
    await senderError.waitFor();
    assert.match((await senderError.textContent())!, /email address/);
    assert.equal(await page.getByLabel('Sender email').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.locator('#f-subject-error').isVisible(), 'the empty subject is named too');
    await page.getByLabel('Sender email').fill('news@acme.test');
    assert.equal(await senderError.count(), 0, 'the error goes once the field changes');

    await page.getByLabel('Subject', { exact: true }).fill('News for you,');
    await page.getByRole('button', { name: 'Add {{ subscriber.first_name }} to the subject' }).click();
    await page.getByRole('checkbox', { name: 'Readers', exact: true }).check();
    await page.getByText('50 people will receive it').waitFor();
    await page.getByLabel('Start from a template').selectOption({ index: 1 });
    await page.locator('.cm-content').getByText('mj-body').first().waitFor();
    // the server's render, with the sample subscriber, shows in both frames
    const desktop = page.frameLocator('iframe[title="Desktop preview"]');
    // the MJML render runs on the server after a pause in typing: slow under load
    await desktop.getByText('Hello Preview').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'June newsletter' }).waitFor();
    await page.frameLocator('iframe[title="Phone preview"]').getByText('Hello Preview').first().waitFor();
    await shoot('campaign-editor');
    if (SHOTS) {
      // a full-page screenshot leaves the sandboxed preview frames unpainted: the preview gets its own, in
      // view, once the frames have painted (a frame paints a moment after its text is in the DOM)
      await page.locator('.preview-frames').scrollIntoViewIfNeeded();
      await page.waitForTimeout(1000);
      await page.screenshot({ path: join(SHOTS, 'campaign-preview.png') });
    }

    // a subject that does not render is refused with Liquid's reason next to the field; nothing is saved
    const subject = page.getByLabel('Subject', { exact: true });
    const goodSubject = await subject.inputValue();
    await subject.fill('News {% nosuchtag %}');
    await page.getByRole('button', { name: 'Save draft' }).click();
    const subjectError = page.locator('#f-subject-error');
    await subjectError.waitFor();
    assert.match((await subjectError.textContent())!, /nosuchtag/);
    await subject.fill(goodSubject);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved.').waitFor();

    const id = page.url().split('/').pop()!;
    await page.getByLabel('Test addresses').fill('me@acme.test');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test sent to 1 address.').waitFor();
    await sink.waitFor(() => sink.messages.some((m) => m.to.includes('me@acme.test')), 10_000);
    const testMail = sink.messages.find((m) => m.to.includes('me@acme.test'))!.parsed!;
    assert.match(testMail.subject ?? '', /News for you,/);

    await page.getByRole('button', { name: 'Send now…' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('to 50 people now?').waitFor();
    await shoot('campaign-confirm');
    await page.getByRole('button', { name: 'Yes, send to 50 people' }).click();
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await page.locator('.progress-live .badge', { hasText: 'sent' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-count="sent"]').textContent(), '50');
    await sink.waitFor(() => sink.messages.filter((m) => m.to[0]?.endsWith('@readers.test')).length === 50, 15_000);

    // a reader opens and clicks: the tracking URLs come from a received message
    const mail = sink.messages.find((m) => m.to.includes('r7@readers.test'))!.parsed!;
    const html = String(mail.html);
    const pixel = /<img[^>]+src="([^"]+\/t\/[^"]+)"/.exec(html)?.[1];
    const click = /href="([^"]+\/t\/[^"]+)"/.exec(html)?.[1];
    assert.ok(pixel && click, 'the message has an open pixel and a tracked link');
    assert.equal((await fetch(pixel!.replaceAll('&amp;', '&'))).status, 200);
    const clicked = await fetch(click!.replaceAll('&amp;', '&'), { redirect: 'manual' });
    assert.equal(clicked.status, 302);
    const target = clicked.headers.get('location')!;

    await page.reload();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    const uniqueOpens = page.locator('.stat', { hasText: 'Opened by people' }).locator('.stat-value');
    await page.waitForFunction(
      () =>
        document.querySelector('.stat-value') &&
        [...document.querySelectorAll('.stat')].some((e) => /^1Opened by people/.test(e.textContent ?? '')),
    );
    assert.equal(await uniqueOpens.textContent(), '1');
    assert.match((await page.getByTestId('open-rate-note').textContent())!, /counts people only: 0 opens by privacy/);
    assert.equal(await page.locator('.stat', { hasText: 'Unique clicks' }).locator('.stat-value').textContent(), '1');
    const linkRow = page.getByRole('table', { name: 'Clicks per link' }).getByRole('row').filter({ hasText: target });
    assert.match((await linkRow.textContent())!, /11Who clicked$/, 'one unique click, one click');
    // who clicked the link, and the ledger per provider (every reader is on one domain)
    await linkRow.getByRole('button', { name: 'Who clicked' }).click();
    await page.getByRole('table', { name: 'Who clicked' }).getByText('r7@readers.test').waitFor();
    const provider = page
      .getByRole('table', { name: 'By provider' })
      .getByRole('row')
      .filter({ hasText: 'readers.test' });
    assert.match(
      (await provider.textContent())!,
      /^readers\.test505000011$/,
      '50 recipients, 50 sent, 1 opened, 1 clicked',
    );
    assert.equal(
      await page.getByRole('table', { name: 'Recipients' }).getByRole('row').count(),
      26,
      'a header and the first 25 recipients',
    );
    await page.locator('.u-over').first().waitFor(); // the chart drew
    await shoot('campaign-report');

    await page.getByRole('link', { name: '← Campaigns' }).click();
    const row = page.getByRole('table', { name: 'Campaigns' }).getByRole('row').filter({ hasText: 'June newsletter' });
    assert.match((await row.textContent())!, /sent.*Readers.*50.*50.*2 %.*2 %/);
    await shoot('campaigns');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('table', { name: 'Recent campaigns' }).getByText('June newsletter').waitFor();
    await shoot('overview');
    assert.ok(id);
  });
});
