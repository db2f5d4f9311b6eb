// GET /api/docs in Debian's Chromium: the reference page renders the OpenAPI document with the Redoc bundle
// the server itself serves, asks nothing of any other host, and shows the operations. SCREENSHOTS=1 writes
// docs/screenshots/api-docs.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { browserSkip, launchChromium, SHOTS } from '../../support/browser.ts';
import { startServer } from '../../support/server.ts';

describe('GET /api/docs', { skip: browserSkip(false) }, () => {
  test('renders the REST reference from the local bundle, with no request to another host', async () => {
    const s = await startServer({ after });
    const browser = await launchChromium();
    after(() => browser.close());
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const foreign: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(s.url) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const res = await page.goto(`${s.url}/api/docs`);
    assert.equal(res?.status(), 200);
    // Redoc writes each operation as an h2 of the page once the document is loaded and rendered
    await page.locator('h2', { hasText: 'Create a subscriber' }).first().waitFor({ timeout: 60_000 });
    await page.locator('h1', { hasText: 'Mailgrove REST API' }).first().waitFor();
    assert.deepEqual(foreign, []);
    assert.deepEqual(errors, []);
    if (SHOTS) {
      const heading = page.locator('h2', { hasText: 'Create a subscriber' }).first();
      await heading.evaluate((h) => h.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SHOTS, 'api-docs.png') });
    }
  });
});
