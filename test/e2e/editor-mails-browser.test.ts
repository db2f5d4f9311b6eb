// An automation email and a form's confirmation mail built in the visual editor against the real server,
// end to end, on one server and one browser with an SMTP sink:
// - an automation's email step built with blocks (heading, text with a merge tag, an uploaded image), the
//   automation turned on and triggered by a signup, and the email the sink receives: the blocks, the image
//   under PUBLIC_URL and the personalised name;
// - a form's confirmation mail edited with blocks from the "Confirm button" starter ({{ confirm_url }}
//   inserted from the merge tags too), previewed, saved, a signup on the hosted form, and the confirmation
//   mail the sink receives, whose link confirms the signup.
// editor-newsletter-browser.test.ts tells the campaign's story. With SCREENSHOTS=1 it writes
// docs/screenshots/{automation,confirmation}-block-editor(-390).png.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import * as forms from '../../src/domain/forms/forms.ts';
import type { TestServer } from '../support/server.ts';
import { SHOTS, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';
import { dragTo, dropFile, editorStory, expectBlocks, png } from '../support/editor.ts';
import { until } from '../support/until.ts';

describe(
  'automation and confirmation mails in the visual editor, end to end (Chromium, real server, SMTP sink)',
  { skip: browserSkip() },
  () => {
    const session = dashboardInBrowser({
      env: { WORKER_POLL_MS: 200 },
      viewport: { width: 1366, height: 900 },
      phone: true,
      sink: true,
    });
    let s: TestServer;
    let page: Page;
    let accountId: string;
    before(async () => {
      ({ s, page } = session);
      s.config.publicUrl = s.url; // PORT 0: image and confirmation URLs must point at the port we got
      accountId = await createOwner(page, s);
      await s.db
        .updateTable('accounts')
        .set({ default_from_name: 'Acme Teas', default_from_email: 'news@acme.test' })
        .where('id', '=', accountId)
        .execute();
    });

    const { palette, last, mailTo, textWithName, shoot } = editorStory(session);

    test('an automation email built with blocks: a signup triggers it and the sink gets the blocks', async () => {
      const form = await forms.create(s.db, accountId, { name: 'Tea club', fields: [{ key: 'first_name' }] });
      await page.goto(s.url + '/app/automations/new');
      await page.getByLabel('Automation name').fill('Tea club welcome');
      await page.getByLabel('When').selectOption('form_submitted');
      await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Tea club' });
      await page.getByRole('button', { name: 'Add a step to the automation' }).click();
      const step = page.getByRole('listitem', { name: 'Step 1: Send email' });
      await step
        .getByLabel('Subject', { exact: true })
        .fill('Welcome, {{ subscriber.first_name | default: "friend" }}');
      await step.getByLabel('Format').selectOption('blocks');
      await page.getByRole('button', { name: 'Use the template Newsletter', exact: true }).waitFor();

      await dragTo(page, palette('Heading'), page.locator('.be-canvas'), 'center');
      await page.getByLabel('Heading text').fill('Welcome to the tea club');
      await dragTo(page, palette('Text'), last());
      await textWithName(0, 'So glad you joined, ', '.');
      await dropFile(page, '.be-canvas', 'leaves.png', 'image/png', png(300, 120, [120, 80, 20]));
      await page.locator('.be-block-image img').waitFor();
      await expectBlocks(page, ['heading', 'text', 'image']);
      await page.getByRole('button', { name: 'Show the preview of Step 1' }).click();
      await page.frameLocator('iframe[title="Desktop preview"]').getByText('Welcome to the tea club').waitFor();
      if (SHOTS) await page.locator('.be-block-text .be-rich').first().click();

      await page.getByRole('button', { name: 'Create automation' }).click();
      await page.waitForURL(/\/app\/automations\/[0-9a-f-]{36}$/);
      await page.locator('.be-canvas > .be-block').first().waitFor();
      if (SHOTS) await page.locator('.be').evaluate((e: any) => e.scrollIntoView({ block: 'start' }));
      await shoot('automation-block-editor', '.be-canvas > .be-block');
      await page.getByRole('button', { name: 'Turn on' }).click();
      await page.getByText('This automation is on.').waitFor();

      // the signup posted as the embed snippet's script does
      const signup = await page.request.post(`${s.url}/f/${form.id}`, {
        headers: { accept: 'application/json' },
        data: { email: 'nia@example.com', first_name: 'Nia' },
      });
      assert.equal(signup.status(), 200, await signup.text());
      const mail = await mailTo('nia@example.com');
      assert.equal(mail.subject, 'Welcome, Nia');
      const html = String(mail.html);
      assert.match(html, /Welcome to the tea club/);
      assert.match(html, /So glad you joined, Nia\./);
      assert.match(html, new RegExp(`<img[^>]+src="${s.url}/images/[^"]+"`), 'image under PUBLIC_URL');
      assert.match(html, /<html[\s>][\s\S]*<body/i);
    });

    test("a form's confirmation mail built with blocks: a hosted signup gets it, and its button confirms", async () => {
      const form = await forms.create(s.db, accountId, {
        name: 'Tasting list',
        double_opt_in: true,
        fields: [{ key: 'first_name' }],
      });
      await page.goto(`${s.url}/app/forms/${form.id}`);
      const mailCard = page.getByRole('region', { name: 'Confirmation email preview' });
      // nothing set: the built-in mail is what the preview shows
      await page
        .frameLocator('iframe[title="Confirmation email preview"]')
        .getByText('Confirm your subscription')
        .waitFor();
      await page
        .getByLabel('Confirmation subject', { exact: true })
        .fill('One click, {{ subscriber.first_name | default: "friend" }}');
      await page.getByRole('button', { name: 'Customise the email' }).click();
      await page.locator('.be-block-button').waitFor();
      await page.getByLabel('Heading text').fill('Join the tasting list');
      await dragTo(page, palette('Text'), last());
      await page.locator('.be-block-text .be-rich').last().click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('No button? Open ');
      await page.getByRole('button', { name: 'Insert a merge tag into the text' }).last().click();
      await page.getByRole('button', { name: 'Insert Confirmation link into the text' }).click();
      await page
        .frameLocator('iframe[title="Confirmation email preview"]')
        .getByText('Join the tasting list')
        .waitFor();
      assert.match((await mailCard.innerText()) ?? '', /One click, Ada/);
      await page.getByRole('button', { name: 'Save confirmation email' }).click();
      await page.getByText('Confirmation email saved.').waitFor();
      const saved = await s.db.selectFrom('forms').selectAll().where('id', '=', form.id).executeTakeFirstOrThrow();
      assert.equal(saved.confirmation_format, 'blocks');
      assert.match(saved.confirmation_html!, /Join the tasting list/);
      await page.locator('.be-block-heading').scrollIntoViewIfNeeded();
      await shoot('confirmation-block-editor', '.be-canvas > .be-block');

      const visitor = await page.context().newPage();
      await visitor.goto(`${s.url}/f/${form.id}`);
      await visitor.getByLabel('Email').fill('lin@example.com');
      await visitor.getByLabel('First name').fill('Lin');
      await visitor.getByRole('button', { name: 'Subscribe' }).click();
      const mail = await mailTo('lin@example.com');
      assert.equal(mail.subject, 'One click, Lin');
      const html = String(mail.html);
      assert.match(html, /Join the tasting list/);
      assert.match(html, /Hi Lin,/);
      const link = new RegExp(`href="(${s.url}/f/confirm/[^"]+)"`).exec(html)?.[1];
      assert.ok(link, 'the button carries the confirmation link');
      assert.match(html, new RegExp(`No button\\? Open ${link!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      await visitor.goto(link!.replace(/&amp;/g, '&'));
      await until('the signup confirmed', () =>
        s.db
          .selectFrom('subscribers')
          .select('status')
          .where('email', '=', 'lin@example.com')
          .where('status', '=', 'active')
          .executeTakeFirst(),
      );
      await visitor.close();
    });
  },
);
