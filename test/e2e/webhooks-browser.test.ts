// Webhooks in a real browser with a real receiver: create one on the page (URL, an event from the
// checklist), copy its secret, let a subscriber created through REST reach the receiver signed, see it in
// the page's delivery log, and replay it: the receiver gets the same body again, signed afresh.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { restClient, startServer, type TestServer } from '../support/server.ts';
import { until } from '../support/until.ts';
import { SHOTS, assertPageFitsPhone, browserSkip, createOwner, launchChromium } from '../support/browser.ts';

describe('webhooks in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  let s: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  const stops: (() => unknown)[] = [];
  const scope = { after: (fn: () => unknown) => void stops.push(fn) };

  before(async () => {
    receiver = await startReceiver(scope);
    s = await startServer(scope, { ALLOW_PRIVATE_WEBHOOK_URLS: true, WORKER_POLL_MS: 200, WEBHOOK_TIMEOUT_MS: 3000 });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.setDefaultTimeout(15_000);
  });
  after(async () => {
    await browser?.close();
    for (const stop of stops.reverse()) await stop();
  });

  test('create on the page, a signed delivery in the log, Replay delivers it again', async () => {
    const accountId = await createOwner(page, s, 'Acme Hooks');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.getByLabel('URL').fill(`${receiver.base}/crm`);
    await page.getByLabel('Name').fill('CRM sync');
    const created = page.getByRole('checkbox', { name: /^subscriber\.created / });
    // every line says what its event means
    assert.match(
      (await created.locator('xpath=..').innerText()).trim(),
      /^subscriber\.created\s+A subscriber was added/,
    );
    // no event chosen: the server's error shows next to the checklist
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('At least one event is required').waitFor();
    await created.check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    await page.getByRole('button', { name: 'I have stored the secret' }).click();
    await page.getByRole('table', { name: 'Webhooks' }).getByRole('cell', { name: 'Never' }).waitFor();

    const api = restClient(s.url, (await s.newKey(accountId)).key);
    assert.equal((await api.post('/subscribers', { email: 'grace@example.com' })).status, 201);
    const hits = () => receiver.received.filter((r) => r.path === '/crm');
    await until('the delivery', () => hits().length === 1);
    const payload = new Webhook(secret).verify(hits()[0]!.body, hits()[0]!.headers) as any;
    assert.equal(payload.data.subscriber.email, 'grace@example.com');

    await page.getByRole('link', { name: 'CRM sync' }).click();
    const log = page.getByRole('table', { name: 'Deliveries' });
    const first = log.locator('tr[data-status="delivered"]');
    await first.getByText('200 delivered').waitFor();
    assert.match(await first.innerText(), /subscriber\.created[\s\S]*answer 200 for \/crm/);

    await first.getByRole('button', { name: /^Replay subscriber\.created/ }).click();
    await until('the replay', () => hits().length === 2);
    const [a, b] = hits();
    assert.equal(b!.body, a!.body, 'the same payload');
    assert.equal((new Webhook(secret).verify(b!.body, b!.headers) as any).id, payload.id);
    await log.locator('tr[data-status="delivered"]').nth(1).waitFor();
    await log.getByText('replay', { exact: true }).waitFor();
    assert.equal(await log.locator('tbody tr').count(), 2);

    // the log narrows to a status and a day range; nothing failed, and nothing was delivered tomorrow
    const filters = page.getByRole('search', { name: 'Filter deliveries' });
    await filters.getByLabel('Status').selectOption('failed');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No delivery matches these filters.').waitFor();
    await filters.getByLabel('Status').selectOption('');
    await filters.getByLabel('Event').selectOption('subscriber.created');
    const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('en-CA');
    await filters.getByLabel('From').fill(tomorrow);
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No delivery matches these filters.').waitFor();
    await filters.getByLabel('From').fill('');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await log.locator('tr[data-status="delivered"]').nth(1).waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'webhook.png'), fullPage: true });
    await assertPageFitsPhone(page, 'the delivery log');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('table', { name: 'Webhooks' }).getByText('CRM sync').waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'webhooks.png'), fullPage: true });
    await assertPageFitsPhone(page, 'webhooks');
  });
});
