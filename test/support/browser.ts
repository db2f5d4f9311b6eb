// Debian's Chromium driven by playwright-core, the same way in every browser test: where it lives, the
// flags this machine's closed network needs, and the reason a file is skipped when it cannot run.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { WEB_DIST } from '../../src/http/dashboard/spa.ts';
import { after, before } from 'node:test';
import type { Env } from '../../src/config.ts';
import { startServer, type TestServer } from './server.ts';
import { startSink, type Sink } from './smtpSink.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** describe's skip option: false when Chromium (and, for dashboard pages, the built app) is there. */
export function browserSkip(needsDashboard = true): false | string {
  if (!existsSync(CHROMIUM)) return 'chromium not installed (apt-get install -y chromium)';
  if (needsDashboard && !existsSync(join(WEB_DIST, 'index.html'))) return 'web/dist missing (npm run build:web)';
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Where SCREENSHOTS=1 makes the browser tests write the pictures docs/dashboard.md shows. */
export const SHOTS = process.env.SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/screenshots') : undefined;

// the functions given to page.evaluate run in the browser, where there is a document
declare const document: any;

/**
 * The page on a phone (390 px): it must not scroll sideways, and on a dashboard page the content must
 * start right under the navigation (no empty band between them on a short page).
 */
export async function assertFitsPhone(phone: Page, what: string): Promise<void> {
  const { width, gap, squeezed, out } = await phone.evaluate(() => {
    // the links' list, not the nav element: a stretched nav is the empty band this looks for; folded
    // (the phone's menu button shows instead), the button
    const list = document.querySelector('nav.sidebar ul');
    const links =
      list && list.getBoundingClientRect().height > 0 ? list : document.querySelector('nav.sidebar .menu-toggle');
    const main = document.querySelector('main.content');
    const squeezed = [...document.querySelectorAll('table.data .break')]
      .filter((e: any) => e.getBoundingClientRect().width < 100)
      .map((e: any) => e.textContent);
    // what sticks out, for the message: the innermost elements whose right edge passes the screen's
    const out = [...document.querySelectorAll('body *')]
      .filter((e: any) => e.getBoundingClientRect().right > 391 && e.children.length === 0)
      .slice(0, 3)
      .map((e: any) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${e.textContent.slice(0, 30)}"`);
    return {
      out,
      width: document.documentElement.scrollWidth,
      gap: links && main ? main.getBoundingClientRect().top - links.getBoundingClientRect().bottom : 0,
      squeezed,
    };
  });
  assert.ok(width <= 390, `${what} is ${width} px wide at 390 px (${out.join(', ')})`);
  assert.deepEqual(squeezed, [], `${what}: table values squeezed under 100 px wide at 390 px`);
  // the nav's own bottom padding and border are ~17 px
  assert.ok(gap <= 40, `${what}: ${Math.round(gap)} px between the navigation and the content at 390 px`);
  const nav = await phone.evaluate(() => document.querySelector('nav.sidebar')?.getBoundingClientRect().height ?? 0);
  // the thirteen links once filled a third of the screen; folded, the navigation is one line
  assert.ok(nav <= 80, `${what}: the navigation is ${Math.round(nav)} px tall at 390 px`);
}

/** The page `page` shows, opened again in a 390 px tab of the same session and checked by assertFitsPhone. */
export async function assertPageFitsPhone(page: Page, what: string): Promise<void> {
  const phone = await page.context().newPage();
  try {
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(page.url());
    await phone.locator('h1').first().waitFor();
    await phone.waitForTimeout(500); // what loads after the heading (counts, a table) lays out
    await assertFitsPhone(phone, what);
  } finally {
    await phone.close();
  }
}

/**
 * A fresh instance's first visit: creates the owner account through the sign-up form (as ada@acme.test)
 * and waits for the overview; answers the new account's id.
 */
export async function createOwner(page: Page, s: TestServer, account = 'Acme'): Promise<string> {
  await page.goto(s.url + '/');
  await page.getByLabel('Account name').fill(account);
  await page.getByLabel('Email').fill('ada@acme.test');
  await page.getByLabel('Password').fill('analytical engine');
  await page.getByRole('button', { name: 'Create the owner account' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return (await s.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow()).id;
}

export interface BrowserSession {
  s: TestServer;
  browser: Browser;
  page: Page;
  /** A second page of the same session at 390 × 844, when asked for. */
  phone: Page;
  /** The SMTP sink the server sends to, when asked for. */
  sink: Sink;
}

/**
 * Inside a describe: a server and a Chromium page for its tests, started together in before() (the
 * migrations and the browser's launch overlap: most of a browser file's time is there) and closed after;
 * with `sink`, the server sends to an SMTP sink of its own, and with `phone` a second page is 390 px wide.
 */
export function dashboardInBrowser(
  options: {
    env?: Partial<Record<keyof Env, unknown>>;
    viewport?: { width: number; height: number };
    phone?: boolean;
    sink?: boolean;
  } = {},
): BrowserSession {
  const session = {} as BrowserSession;
  let stopServer: (() => Promise<void>) | undefined;
  before(async () => {
    if (options.sink) session.sink = await startSink();
    const env = { ...options.env, ...(options.sink && { SMTP_URL: session.sink.url }) };
    [session.s, session.browser] = await Promise.all([
      startServer({ after: (fn: () => Promise<void>) => void (stopServer = fn) }, env),
      launchChromium(),
    ]);
    const context = await session.browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 900 } });
    session.page = await context.newPage();
    session.page.setDefaultTimeout(30_000);
    if (options.phone) {
      session.phone = await context.newPage();
      await session.phone.setViewportSize({ width: 390, height: 844 });
    }
  });
  after(async () => {
    await session.browser?.close();
    await stopServer?.();
    await session.sink?.close();
  });
  return session;
}
