// npm run bench -- editor [--runs N]: how long the visual editor's route takes to become usable in Chromium,
// from the start of the navigation until the canvas holds a block added from the palette. "Cold" is a new
// browser context (empty cache, signed in), "warm" the same page loaded again. The baseline, measured in
// the same run and the same way, is the campaign list, a page that loads none of the editor's code: the
// ratio says what the editor itself costs on this machine at this moment. Target: cold under 1.5 s.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM, createOwner, launchChromium } from '../test/support/browser.ts';
import { startServer } from '../test/support/server.ts';
import { fmt } from './support.ts';

const TARGET_MS = 1500;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(page: Page, path: string, ready: (page: Page) => Promise<unknown>, url: string) {
  const started = performance.now();
  await page.goto(url + path, { waitUntil: 'commit' });
  await ready(page);
  return performance.now() - started;
}

const editorReady = async (page: Page) => {
  await page.getByRole('button', { name: 'Add Heading', exact: true }).click();
  await page.locator('.be-canvas > .be-block').first().waitFor();
};
const listReady = (page: Page) => page.getByRole('heading', { name: 'Campaigns' }).first().waitFor();

export default async function run(args: string[]): Promise<void> {
  const at = args.indexOf('--runs');
  const runs = at >= 0 ? Number(args[at + 1]) : 6;
  const stops: (() => Promise<void>)[] = [];
  const s = await startServer({ after: (fn) => void stops.push(fn as () => Promise<void>) });
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const first = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    await createOwner(await first.newPage(), s);
    const signedIn = await first.storageState();
    const result: Record<string, { cold: number[]; warm: number[] }> = {
      'campaign list (baseline)': { cold: [], warm: [] },
      'visual editor': { cold: [], warm: [] },
    };
    for (let i = 0; i < runs; i++) {
      // alternating, so that the machine's moments fall on both pages alike
      for (const [name, path, ready] of [
        ['campaign list (baseline)', '/app/campaigns', listReady],
        ['visual editor', '/app/campaigns/new', editorReady],
      ] as const) {
        const context: BrowserContext = await browser.newContext({
          viewport: { width: 1366, height: 900 },
          storageState: signedIn,
        });
        const page = await context.newPage();
        result[name]!.cold.push(await timed(page, path, ready, s.url));
        result[name]!.warm.push(await timed(page, path, ready, s.url));
        await context.close();
      }
    }
    console.log(`Chromium ${CHROMIUM}, ${runs} runs each; ms from navigation to usable (min / median)`);
    const base = result['campaign list (baseline)']!;
    for (const [name, r] of Object.entries(result)) {
      console.log(
        `${name.padEnd(26)} cold ${fmt(Math.min(...r.cold))} / ${fmt(median(r.cold))}   warm ${fmt(Math.min(...r.warm))} / ${fmt(median(r.warm))}` +
          `   cold median ÷ baseline ${(median(r.cold) / median(base.cold)).toFixed(2)}`,
      );
    }
    const cold = median(result['visual editor']!.cold);
    console.log(
      `editor cold median ${fmt(cold)} ms: ${cold < TARGET_MS ? 'within' : 'over'} the ${TARGET_MS} ms target`,
    );
  } finally {
    await browser?.close();
    for (const stop of stops) await stop();
  }
}
