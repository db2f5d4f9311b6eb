// What the visual editor's browser tests share: a real PNG made here (no fixture file), a pointer drag the
// way a person does it (press, move in steps, release: @dnd-kit's pointer sensor needs the movement), and
// an image file dropped on the canvas through a DataTransfer, as the browser does for a file from the desktop.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Locator, Page } from 'playwright-core';
import { SHOTS, assertFitsPhone } from './browser.ts';
import type { Sink } from './smtpSink.ts';

// the functions given to page.evaluate run in the browser, where these exist
declare const document: any;
declare const DataTransfer: any;
declare const DragEvent: any;
declare const File: any;
declare function atob(s: string): string;

/** A solid-colour RGB PNG of the given size. */
export function png(width: number, height: number, rgb: [number, number, number] = [22, 101, 52]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Drags `from` onto `to`, released near its bottom edge (after it) or top edge (before it). */
export async function dragTo(page: Page, from: Locator, to: Locator, where: 'top' | 'bottom' | 'center' = 'bottom') {
  // both ends on the screen: the pointer cannot press or release outside it
  await to.evaluate((e: any) => e.scrollIntoView({ block: 'center' }));
  const first = [(await from.boundingBox())!, (await to.boundingBox())!];
  const height = page.viewportSize()?.height ?? 800;
  // the middle of the way in the middle of the screen: far from the edges, where dragging scrolls the page
  await page.evaluate((dy) => (globalThis as any).scrollBy(0, dy), (first[0]!.y + first[1]!.y) / 2 - height / 2);
  await page.waitForTimeout(100);
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width / 2 + 12, a.y + a.height / 2 + 12, { steps: 2 });
  const y = where === 'bottom' ? b.y + b.height - 6 : where === 'top' ? b.y + 6 : b.y + b.height / 2;
  await page.mouse.move(b.x + b.width / 2, y, { steps: 4 });
  // released only once the editor shows where the block will land (the target's highlight or a drop line
  // inside it): on a loaded machine React draws that a few moves late, and a release before it drops the
  // block nowhere. Small moves keep the pointer sensor measuring while it catches up.
  const shown = () =>
    to.evaluate((e: any) => {
      const marks = '.over, .drop-before, .drop-after';
      return e.matches(marks) || !!e.querySelector(marks);
    });
  for (let i = 0; i < 50 && !(await shown()); i++) {
    await page.mouse.move(b.x + b.width / 2 + (i % 2 ? 1 : 2), y, { steps: 1 });
    await page.waitForTimeout(100);
  }
  await page.mouse.up();
  // @dnd-kit swallows every click for 50 ms after a drag (a timer of the page's), so a click right after
  // the drop (Undo, Create draft) would be lost on a loaded machine. A page timer set now for 60 ms fires
  // after that one, however late both run.
  await page.evaluate(() => new Promise((done) => setTimeout(done, 60)));
}

/** Drops a file on the element matched by `selector`, as a file dragged in from the desktop. */
export async function dropFile(page: Page, selector: string, name: string, type: string, bytes: Buffer) {
  await page.evaluate(
    ({ selector, name, type, b64 }) => {
      const data = Uint8Array.from(atob(b64), (c: string) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], name, { type }));
      const target = document.querySelector(selector);
      for (const event of ['dragenter', 'dragover', 'drop'])
        target.dispatchEvent(new DragEvent(event, { bubbles: true, cancelable: true, dataTransfer: transfer }));
    },
    { selector, name, type, b64: bytes.toString('base64') },
  );
}

/** The block types on the canvas, top to bottom (blocks inside columns are listed after their columns). */
export function canvasBlocks(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('.be-canvas > .be-block')].map((e: any) => e.dataset.block as string),
  );
}

/** Waits up to 5 s for the canvas to show these block types, top to bottom, then asserts them. */
export async function expectBlocks(page: Page, expected: string[]) {
  for (let i = 0; i < 50 && JSON.stringify(await canvasBlocks(page)) !== JSON.stringify(expected); i++)
    await page.waitForTimeout(100);
  assert.deepEqual(await canvasBlocks(page), expected);
}

/**
 * What the editor stories do on the session's page (and its 390 px twin) against the real server and its
 * SMTP sink: palette buttons, the last block, typed text with a merge tag, the captured message,
 * screenshots. The session is read when a helper runs: its pages exist from before() on.
 */
export function editorStory(session: { page: Page; phone: Page; sink: Sink }) {
  const page = () => session.page;
  return {
    palette: (name: string) => page().getByRole('button', { name: `Add ${name}`, exact: true }),
    last: () => page().locator('.be-canvas > .be-block').last(),
    /** The first message the sink received for the address, parsed. */
    async mailTo(address: string) {
      const { sink } = session;
      await sink.waitFor(() => sink.messages.some((m) => m.to.includes(address)), 20_000);
      return sink.messages.find((m) => m.to.includes(address))!.parsed!;
    },
    /** Text typed into the text block `n`, with the First name merge tag in the middle. */
    async textWithName(n: number, before: string, after: string) {
      await page().locator('.be-block-text .be-rich').nth(n).click();
      await page().keyboard.press('ControlOrMeta+a');
      await page().keyboard.type(before);
      await page().getByRole('button', { name: 'Insert a merge tag into the text' }).click();
      await page().getByRole('button', { name: 'Insert First name into the text' }).click();
      await page().keyboard.type(after);
    },
    /**
     * The page as it is now, and at 390 px, into docs/screenshots when SCREENSHOTS=1; `fit` also checks
     * that the page does not scroll sideways at 390 px.
     */
    async shoot(name: string, ready: string, fit = false) {
      if (!SHOTS && !fit) return;
      const { phone } = session;
      if (SHOTS) await page().screenshot({ path: join(SHOTS, `${name}.png`) });
      await phone.goto(page().url());
      await phone.locator(ready).first().waitFor();
      await phone.waitForTimeout(500);
      await assertFitsPhone(phone, name);
      if (SHOTS) {
        await phone.locator(ready).first().scrollIntoViewIfNeeded();
        await phone.screenshot({ path: join(SHOTS, `${name}-390.png`) });
      }
    },
  };
}
