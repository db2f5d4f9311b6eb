// The visual editor's own behaviour in Chromium, against the real server (nothing stubbed), on a draft
// made through the dashboard API so no time goes into building it: the merge tag's fallback in the
// subject, the question before leaving a new draft, a block dragged into a column, one moved by its
// handle, undo and redo, the format switch that asks before discarding, the live preview beside the
// editor, the warning when another tab saved first (a real 409, nothing overwritten, their version
// loaded), the phone preview and a page that fits 390 px. editor-newsletter-browser.test.ts builds a
// newsletter from nothing and sends it.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../support/server.ts';
import { assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';
import { dragTo, editorStory, expectBlocks } from '../support/editor.ts';
import { until } from '../support/until.ts';

const CSRF = { 'x-mailgrove-csrf': '1' };
const DOCUMENT = {
  version: 1,
  blocks: [
    { id: 'h', type: 'heading', level: 1, text: 'Winter teas are here' },
    { id: 't', type: 'text', html: '<p>Dear {{ subscriber.first_name | default: "there" }}, eight new blends.</p>' },
    { id: 'b', type: 'button', text: 'Shop', href: 'https://acme.test/shop' },
    {
      id: 'c',
      type: 'columns',
      columns: [[{ id: 'c1', type: 'text', html: '<p>Left</p>' }], [{ id: 'c2', type: 'text', html: '<p>Right</p>' }]],
    },
  ],
};

describe('the visual editor on the page (Chromium, real server)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1366, height: 900 }, phone: true });
  let s: TestServer;
  let page: Page;
  before(async () => {
    ({ s, page } = session);
    await createOwner(page, s);
  });
  const { palette } = editorStory(session);

  test('a new draft: the merge tag goes in with its fallback, and leaving asks first', async () => {
    await page.goto(s.url + '/app/campaigns/new');
    await page.getByLabel('Campaign name').fill('Unsaved');
    await page.getByLabel('Subject', { exact: true }).fill('Hi');
    await page.getByRole('button', { name: 'Insert a merge tag into the subject' }).click();
    await page.getByLabel('Fallback for First name').fill('friend');
    await page.getByRole('button', { name: 'Insert First name into the subject' }).click();
    assert.equal(
      await page.getByLabel('Subject', { exact: true }).inputValue(),
      'Hi {{ subscriber.first_name | default: "friend" }}',
    );
    // a new campaign opens the gallery with the starters
    await page.getByRole('button', { name: 'Use the template Newsletter', exact: true }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('alertdialog', { name: 'Leave this page?' }).waitFor();
    await page.getByRole('button', { name: 'Stay' }).click();
    assert.match(page.url(), /\/app\/campaigns\/new$/);
  });

  test('a saved draft: drag into a column, reorder, undo/redo, format switch, preview, another tab, phone', async () => {
    const made = await page.request.post(`${s.url}/app/api/campaigns`, {
      headers: CSRF,
      data: { name: 'Winter teas', subject: 'Winter teas', content_format: 'blocks', content_source: DOCUMENT },
    });
    assert.equal(made.status(), 201, await made.text());
    const id = (await made.json()).data.id as string;
    const row = () => s.db.selectFrom('campaigns').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    // the unsaved new draft of the test before is left: the browser's own question, accepted
    page.once('dialog', (d) => void d.accept());
    await page.goto(`${s.url}/app/campaigns/${id}`);
    await page.locator('.be-block-heading').waitFor();
    // the text editor's code arrives after the canvas (its own chunk): the history steps below start once it
    // has mounted. A slow machine let it mount after the reorder, and Undo then took back that mount's
    // rewrite of the text instead of the move
    await page.locator('.be-block-text .be-rich').first().waitFor();
    await expectBlocks(page, ['heading', 'text', 'button', 'columns']);

    // a block dragged into the second column, and a block moved by dragging its handle
    await dragTo(page, palette('Divider'), page.locator('.be-column').nth(1), 'bottom');
    await page.locator('.be-column').nth(1).locator('.be-block-divider').waitFor({ timeout: 5_000 });
    await page.locator('.be-block-button .be-button').click(); // selected: its tools stay shown
    await dragTo(page, page.getByRole('button', { name: 'Drag Button' }), page.locator('.be-block-heading'), 'top');
    await expectBlocks(page, ['button', 'heading', 'text', 'columns']);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expectBlocks(page, ['heading', 'text', 'button', 'columns']);
    await page.getByRole('button', { name: 'Redo', exact: true }).click();
    await expectBlocks(page, ['button', 'heading', 'text', 'columns']);
    await page.getByRole('button', { name: 'Undo', exact: true }).click();

    // a format that cannot take the blocks asks first; cancel keeps everything
    await page.getByLabel('Format').selectOption('mjml');
    await page.getByRole('alertdialog', { name: 'Replace the content?' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.getByLabel('Format').inputValue(), 'blocks');
    assert.equal(await page.locator('.be-canvas > .be-block').count(), 4);

    // the live preview beside the editor is the server's render
    await page.frameLocator('iframe[title="Desktop preview"]').getByText('Winter teas are here').waitFor();
    const side = (await page.locator('.draft-side').boundingBox())!;
    const main = (await page.locator('.draft-main').boundingBox())!;
    assert.ok(side.x > main.x + main.width - 1, 'the preview sits beside the editor at 1366 px');
    await page.getByRole('button', { name: 'Preview at phone width' }).click();
    await page.frameLocator('iframe[title="Phone preview"]').getByText('Winter teas are here').waitFor();

    // the divider autosaves; then another tab saves first: a warning, nothing overwritten, theirs loaded
    await until(
      'the divider autosaved',
      async () => (JSON.parse((await row()).content_source!).blocks[3].columns[1].length === 2 ? true : undefined),
      20_000,
    );
    const theirs = await page.request.put(`${s.url}/app/api/campaigns/${id}`, {
      headers: CSRF,
      data: { preview_text: 'Saved in the other tab' },
    });
    assert.equal(theirs.status(), 200, await theirs.text());
    await page.getByRole('textbox', { name: 'Preview text' }).fill('Eight new blends');
    await page.getByRole('alert').filter({ hasText: 'saved in another tab' }).waitFor({ timeout: 20_000 });
    assert.equal((await row()).preview_text, 'Saved in the other tab', 'nothing overwritten');
    await page.getByRole('button', { name: 'Load the saved version' }).click();
    await until(
      'their version loaded',
      async () =>
        (await page.getByRole('textbox', { name: 'Preview text' }).inputValue()) === 'Saved in the other tab' ||
        undefined,
    );

    const { phone } = session;
    await phone.goto(page.url());
    await phone.locator('.be-canvas > .be-block').first().waitFor();
    await phone.waitForTimeout(500);
    await assertFitsPhone(phone, 'the block editor');
  });
});
