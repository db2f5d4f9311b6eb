// A hosted double opt-in form in a real browser,
// with real SMTP to a sink: fill the form, submit, read the confirmation mail, open its link, and find
// the subscriber active in the form's group. Also: a page on another origin posts to the form with
// fetch (CORS), and the embed snippet served from another origin submits as a plain HTML form.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Browser } from 'playwright-core';
import { restClient, startServer, type TestServer } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';
import { browserSkip, launchChromium } from '../support/browser.ts';

describe('hosted forms in Chromium', { skip: browserSkip(false) }, () => {
  let s: TestServer;
  let sink: Sink;
  let browser: Browser;
  let site: Server;
  let siteUrl = '';
  let siteHtml = '';
  let stopServer: (() => Promise<void>) | undefined;

  before(async () => {
    sink = await startSink();
    s = await startServer({ after: (fn: any) => void (stopServer = fn) }, { SMTP_URL: sink.url });
    s.config.publicUrl = s.url; // PORT 0: links in mails must point at the port we got
    browser = await launchChromium();
    // "another website": serves whatever page a test puts in siteHtml
    site = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(siteHtml),
    );
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`; // localhost ≠ 127.0.0.1: a different origin
  });
  after(async () => {
    await browser?.close();
    await stopServer?.();
    await sink?.close();
    await new Promise((r) => site?.close(r));
  });

  test('double opt-in: fill and submit the hosted form, open the link in the confirmation mail → active subscriber in the group', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const group = (await api.post('/groups', { name: 'Weekly readers' })).body.data;
    await api.post('/fields', { key: 'company', name: 'Company', type: 'text' });
    const form = (
      await api.post('/forms', {
        name: 'Weekly digest',
        double_opt_in: true,
        group_ids: [group.id],
        fields: [{ key: 'first_name', required: true }, { key: 'company' }],
        success_message: 'Thanks, Ada: your subscription is confirmed.',
      })
    ).body.data;

    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${s.url}/f/${form.id}`);
    assert.equal(await page.title(), 'Weekly digest');
    await page.getByLabel('Email').fill('ada.lovelace@example.com');
    await page.getByLabel('First name').fill('Ada');
    await page.getByLabel('Company').fill('Analytical Engines');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await page.getByText('Almost done').waitFor();
    assert.equal(
      await s.db.selectFrom('subscribers').select('id').where('account_id', '=', accountId).executeTakeFirst(),
      undefined,
      'no subscriber before confirmation',
    );

    await sink.waitFor(() => sink.messages.some((m) => m.to.includes('ada.lovelace@example.com')), 10_000);
    const mail = sink.messages.find((m) => m.to.includes('ada.lovelace@example.com'))!.parsed!;
    assert.equal(mail.subject, 'Please confirm your subscription');
    const link = /(http:\/\/\S+\/f\/confirm\/[A-Za-z0-9_\-.]+)/.exec(mail.text ?? '')?.[1];
    assert.ok(link, mail.text);
    assert.ok(String(mail.html).includes(link!));
    assert.match(String(mail.html), /Confirm my subscription<\/a>/, 'the button');

    await page.goto(link!);
    await page.getByText('Thanks, Ada: your subscription is confirmed.').waitFor();
    const sub = await s.db
      .selectFrom('subscribers')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    assert.equal(sub.email, 'ada.lovelace@example.com');
    assert.equal(sub.status, 'active');
    assert.equal(sub.first_name, 'Ada');
    assert.deepEqual(sub.custom_fields, { company: 'Analytical Engines' });
    const groups = (await api.get(`/subscribers/${sub.id}`)).body.data.groups;
    assert.deepEqual(groups, [{ id: group.id, name: 'Weekly readers' }]);
    assert.deepEqual((await api.get(`/forms/${form.id}`)).body.data.stats, {
      views: 1,
      submissions: 1,
      confirmations: 1,
    });
    await page.close();
  });

  test('the browser shows server-side errors next to the field, keeps what was typed, and a fixed submission then works', async () => {
    const { key } = await s.newAccount();
    const api = restClient(s.url, key);
    const form = (await api.post('/forms', { name: 'Plain', fields: [{ key: 'phone' }] })).body.data;
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${s.url}/f/${form.id}`);
    await page.getByLabel('Email').fill('grace@example.com');
    await page.getByLabel('Phone').fill('call me maybe');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Phone must contain only digits, optionally with a leading plus sign').waitFor();
    assert.equal(await page.getByLabel('Email').inputValue(), 'grace@example.com');
    assert.equal(await page.getByLabel('Phone').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Phone').fill('+44 20 7946 0000');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Thank you for subscribing!').waitFor();
    await page.close();
  });

  test('embeds: a page on another origin posts with fetch (CORS answer readable) and with the embed snippet as a plain form', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const form = (await api.post('/forms', { name: 'Embedded', type: 'embedded' })).body.data;
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    siteHtml = '<!doctype html><title>Other site</title><p>hello</p>';
    await page.goto(siteUrl);
    const answer = await page.evaluate(async (url) => {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email: 'fetch@example.com' }),
      });
      return { status: res.status, body: await res.json() };
    }, `${s.url}/f/${form.id}`);
    assert.deepEqual(answer, {
      status: 200,
      body: { success: true, message: 'Thank you for subscribing!', confirmation_required: false },
    });

    siteHtml = `<!doctype html><title>Other site</title>${(await api.get(`/forms/${form.id}`)).body.data.embed}`;
    await page.goto(siteUrl);
    await page.getByLabel('Email').fill('embed@example.com');
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText('Thank you for subscribing!').waitFor();
    const emails = (
      await s.db
        .selectFrom('subscribers')
        .select('email')
        .where('account_id', '=', accountId)
        .orderBy('email')
        .execute()
    ).map((r) => r.email);
    assert.deepEqual(emails, ['embed@example.com', 'fetch@example.com']);
    await page.close();
  });
});
