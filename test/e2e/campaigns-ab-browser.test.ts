// An A/B test in a real browser with real SMTP to a sink: the editor's A/B card turns a draft into a
// two-subject test, the send reaches only the test share, human opens through the real pixel show in the
// report per variant with the confidence note, Pause and Resume sit beside Stop, and picking B sends it to
// the rest. With SCREENSHOTS=1 it writes docs/screenshots/campaign-ab-editor.png and campaign-ab-report.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { type Page } from 'playwright-core';
import { seedAudience } from '../support/campaigns.ts';
import type { TestServer } from '../support/server.ts';
import type { Sink } from '../support/smtpSink.ts';
import { SHOTS, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('A/B tests in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1280, height: 900 }, sink: true });
  let s: TestServer;
  let sink: Sink;
  let page: Page;
  before(() => {
    ({ s, sink, page } = session);
    s.config.publicUrl = s.url;
  });

  test('A/B editor, the test share, the report per variant, pause/resume, the manual winner', async () => {
    const accountId = await createOwner(page, s, 'Acme Newsletters');
    await s.db
      .updateTable('accounts')
      .set({ default_from_name: 'Acme News', default_from_email: 'news@acme.test' })
      .where('id', '=', accountId)
      .execute();
    await seedAudience(s.db, accountId, 40, { group: 'Readers', domain: 'ab.test' });
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    await page.getByRole('link', { name: 'New campaign' }).click();
    await page.getByLabel('Campaign name').fill('June newsletter');
    await page.getByLabel('Subject', { exact: true }).fill('Our June news');
    await page.getByRole('checkbox', { name: 'Readers', exact: true }).check();
    await page.getByLabel('Format').selectOption('html');
    await page.locator('.cm-content').fill('<p>Hello {{ subscriber.first_name }}</p>');
    await page.getByRole('checkbox', { name: /Test variants/ }).check();
    await page.getByLabel('Variant B subject').fill('June: three things you missed');
    await page.getByLabel(/Test share/).fill('50');
    await page.getByLabel(/Wait/).fill('2');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.waitForURL(/\/app\/campaigns\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'June newsletter' }).waitFor();
    assert.equal(await page.getByLabel('Variant B subject').inputValue(), 'June: three things you missed');
    if (SHOTS)
      await page.getByLabel('A/B test', { exact: true }).screenshot({ path: join(SHOTS, 'campaign-ab-editor.png') });

    await page.getByRole('button', { name: 'Send now…' }).click();
    await page.getByRole('button', { name: /Yes, send to 40 people/ }).click();
    await page.getByRole('heading', { name: 'Delivery' }).waitFor();
    await sink.waitFor(() => sink.messages.length >= 20, 20_000);
    await page.waitForTimeout(800);
    assert.equal(sink.messages.length, 20, 'only the test share (50 % of 40)');
    const b = sink.messages.filter((m) => m.parsed!.subject === 'June: three things you missed');
    assert.equal(b.length, 10);
    for (const m of b.slice(0, 5)) {
      const url = /src="([^"]*\/t\/o\/[^"]+)"/.exec(String(m.parsed!.html))![1]!.replaceAll('&amp;', '&');
      await fetch(url, { headers: { 'user-agent': DESKTOP } });
    }
    const a = sink.messages.find((m) => m.parsed!.subject === 'Our June news')!;
    await fetch(/src="([^"]*\/t\/o\/[^"]+)"/.exec(String(a.parsed!.html))![1]!.replaceAll('&amp;', '&'), {
      headers: { 'user-agent': DESKTOP },
    });

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('h1 .badge', { hasText: 'paused' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('h1 .badge', { hasText: 'sending' }).waitFor();

    await page.reload();
    const report = page.getByLabel('A/B test results');
    await report.getByText(/B leads A on the human open rate/).waitFor();
    assert.match((await report.textContent())!, /5 \(50\.0%\)/);
    if (SHOTS) await report.screenshot({ path: join(SHOTS, 'campaign-ab-report.png') });
    await report.getByRole('button', { name: 'Send B to the rest' }).click();
    await report.getByText('winner').waitFor();
    await sink.waitFor(() => sink.messages.length === 40, 20_000);
    assert.equal(sink.messages.filter((m) => m.parsed!.subject === 'June: three things you missed').length, 30);
  });
});
