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
    await page.getByRole('button', { name: 'Insert a merge tag into the subject' }).click();
    await page.getByRole('button', { name: 'Insert First name into the subject' }).click();
    await page.getByRole('checkbox', { name: 'Readers', exact: true }).check();
    await page.getByText('50 people will receive it').waitFor();
    // the gallery of a new campaign: an MJML starter switches the empty visual editor to code
    await page.locator('.gallery-item[data-format="mjml"] .gallery-pick').first().click();
    await page.locator('.cm-content').getByText('mj-body').first().waitFor();
    // the server's render, with the sample subscriber, shows in both frames
    const desktop = page.frameLocator('iframe[title="Desktop preview"]');
    // the MJML render runs on the server after a pause in typing: slow under load
    await desktop.getByText('Hello Preview').first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'June newsletter' }).waitFor();
    await page.getByRole('button', { name: 'Preview at phone width' }).click();
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
    // the checks before sending: on this instance (outbox rules for tests) they warn, and say what to fix
    const checks = confirm.getByRole('list', { name: 'Checks before sending' });
    await checks.waitFor();
    assert.match((await checks.textContent())!, /no postal address/);
    await confirm.getByText('Nothing blocks the send, but look at the warnings first.').waitFor();
    await shoot('campaign-confirm');
    await page.getByRole('button', { name: 'Yes, send to 50 people' }).click();
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await page.locator('.progress-live .badge', { hasText: 'sent' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('[data-count="sent"]').textContent(), '50');
    await sink.waitFor(() => sink.messages.filter((m) => m.to[0]?.endsWith('@readers.test')).length === 50, 15_000);

    // a reader opens and clicks: the tracking URLs come from a received message
    const mail = sink.messages.find((m) => m.to.includes('r7@readers.test'))!.parsed!;
    const html = String(mail.html);
    // an <img> in a message with images of its own, a cell's background otherwise
    const pixel = /(?:<img[^>]+src|background)="([^"]+\/t\/o\/[^"]+)"/.exec(html)?.[1];
    const click = /href="([^"]+\/t\/[^"]+)"/.exec(html)?.[1];
    assert.ok(pixel && click, 'the message has an open pixel and a tracked link');
    const chrome = {
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    };
    assert.equal((await fetch(pixel!.replaceAll('&amp;', '&'), { headers: chrome })).status, 200);
    const clicked = await fetch(click!.replaceAll('&amp;', '&'), { redirect: 'manual', headers: chrome });
    assert.equal(clicked.status, 302);
    const target = clicked.headers.get('location')!;
    // two more readers open, in Apple Mail on an iPhone and in Outlook on a desktop
    const pixelOf = (to: string) =>
      /(?:<img[^>]+src|background)="([^"]+\/t\/o\/[^"]+)"/
        .exec(String(sink.messages.find((m) => m.to.includes(to))!.parsed!.html))![1]!
        .replaceAll('&amp;', '&');
    await fetch(pixelOf('r8@readers.test'), {
      headers: {
        'user-agent':
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
      },
    });
    await fetch(pixelOf('r9@readers.test'), {
      headers: { 'user-agent': 'Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.17328; Pro)' },
    });

    await page.reload();
    await page.getByRole('heading', { name: 'Report' }).waitFor();
    const uniqueOpens = page.locator('.stat', { hasText: 'Opened by people' }).locator('.stat-value');
    await page.waitForFunction(
      () =>
        document.querySelector('.stat-value') &&
        [...document.querySelectorAll('.stat')].some((e) => /^3Opened by people/.test(e.textContent ?? '')),
    );
    assert.equal(await uniqueOpens.textContent(), '3');
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
      /^readers\.test505000031$/,
      '50 recipients, 50 sent, 3 opened, 1 clicked',
    );
    assert.equal(
      await page.getByRole('table', { name: 'Recipients' }).getByRole('row').count(),
      26,
      'a header and the first 25 recipients',
    );
    // people by email client and device, most opens first: each reader once, the clicker's row first
    const rows = async (name: string) =>
      (await page.getByRole('table', { name }).getByRole('row').allTextContents()).slice(1);
    assert.deepEqual(await rows('Email clients'), [
      'Web browser: Chrome1 33.3 %1',
      'Apple Mail1 33.3 %0',
      'Outlook1 33.3 %0',
    ]);
    assert.deepEqual(await rows('Devices'), ['Desktop2 66.7 %1', 'Mobile1 33.3 %0']);
    await page.locator('.u-over').first().waitFor(); // the chart drew
    await shoot('campaign-report');

    await page.getByRole('link', { name: '← Campaigns' }).click();
    const row = page.getByRole('table', { name: 'Campaigns' }).getByRole('row').filter({ hasText: 'June newsletter' });
    assert.match((await row.textContent())!, /sent.*Readers.*50.*50.*6 %.*2 %/);
    await shoot('campaigns');
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('table', { name: 'Recent campaigns' }).getByText('June newsletter').waitFor();
    await shoot('overview');
    assert.ok(id);
  });
});
