// A marketer's automation in a real browser, with real SMTP to a sink: build "form submitted → send a
// welcome email" in the builder (the sender filled in from the account, a field error from the server next
// to its field, a step added, moved and removed, the server's preview), turn it on, submit the form through
// its public endpoint, receive the welcome email, find the run and the sent email in the activity and the
// list, and turn it off and on from the list's switch. The pages must not scroll sideways at 390 px; with
// SCREENSHOTS=1 it also writes docs/screenshots/automations.png, automation-builder.png and
// automation-builder-390.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { type Page } from 'playwright-core';
import * as forms from '../../src/domain/forms/forms.ts';
import * as groups from '../../src/domain/subscribers/groups.ts';
import type { TestServer } from '../support/server.ts';
import type { Sink } from '../support/smtpSink.ts';
import { until } from '../support/until.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

// the functions given to page.evaluate run in the browser, where there is a document
declare const document: any;

describe('automations in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({
    env: { WORKER_POLL_MS: 200 },
    viewport: { width: 1280, height: 860 },
    phone: true,
    sink: true,
  });
  let s: TestServer;
  let sink: Sink;
  let page: Page;
  let phone: Page;
  before(() => void ({ s, sink, page, phone } = session));

  /** The page as it is now, at 390 px too: it must not scroll sideways; screenshots when asked for. */
  async function shoot(name: string, phoneName?: string) {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    await phone.goto(page.url());
    await phone.locator('h1').first().waitFor();
    await phone.waitForTimeout(500);
    await assertFitsPhone(phone, name);
    if (SHOTS && phoneName) await phone.screenshot({ path: join(SHOTS, `${phoneName}.png`), fullPage: true });
  }

  test('build form submitted → welcome email, turn it on, a signup gets the email, the activity shows the run', async () => {
    const accountId = await createOwner(page, s, 'Acme Flows');
    await s.db
      .updateTable('accounts')
      .set({ default_from_name: 'Acme', default_from_email: 'hello@acme.test' })
      .where('id', '=', accountId)
      .execute();
    const welcomed = await groups.create(s.db, accountId, { name: 'Welcomed' });
    const form = await forms.create(s.db, accountId, { name: 'Newsletter signup', fields: [{ key: 'first_name' }] });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automations' }).click();
    await page.getByText('No automations yet.').waitFor();
    await page.getByRole('link', { name: 'New automation' }).first().click();
    await page.getByRole('heading', { name: 'New automation' }).waitFor();
    await page.getByLabel('Automation name').fill('Welcome');
    await page.getByLabel('When').selectOption('form_submitted');
    await page.getByLabel('Form', { exact: true }).selectOption({ label: 'Newsletter signup' });
    await page.getByRole('button', { name: 'Add a step to the automation' }).click();
    const email = page.getByRole('listitem', { name: 'Step 1: Send email' });
    assert.equal(await email.getByLabel('Sender email').inputValue(), 'hello@acme.test', 'account default');

    // nothing written yet: the server's messages sit next to their fields
    await page.getByRole('button', { name: 'Create automation' }).click();
    const subjectError = page.locator('#f-steps-0-subject-error');
    await subjectError.waitFor();
    assert.equal(await subjectError.textContent(), 'subject is required');
    assert.equal(await email.getByLabel('Subject', { exact: true }).getAttribute('aria-invalid'), 'true');
    await email.getByLabel('Subject', { exact: true }).fill('Welcome, {{ subscriber.first_name | default: "friend" }}');
    assert.equal(await subjectError.count(), 0, 'the error goes once the field changes');
    // a new email step opens in the visual editor; this one is written as HTML
    await email.getByLabel('Format').selectOption('html');
    await email.locator('.cm-content').fill('<p>Thanks for signing up, {{ subscriber.first_name }}!</p>');

    // a wait added after it, moved before it, then removed again
    await page.getByLabel('Type of the new step in the automation').selectOption('delay');
    await page.getByRole('button', { name: 'Add a step to the automation' }).click();
    await page.getByRole('button', { name: 'Move Step 2 up' }).click();
    await page.getByRole('listitem', { name: 'Step 1: Wait' }).waitFor();
    await page.getByRole('button', { name: 'Remove Step 1' }).click();
    await page.getByRole('listitem', { name: 'Step 1: Send email' }).waitFor();

    // then a condition: people who gave a first name join "Welcomed"
    await page.getByLabel('Type of the new step in the automation').selectOption('condition');
    await page.getByRole('button', { name: 'Add a step to the automation' }).click();
    await page.getByRole('button', { name: 'Add a rule to Step 2' }).click();
    await page.getByLabel('Field of rule 1 of Step 2').selectOption({ label: 'First name' });
    await page.getByLabel('Operator of rule 1 of Step 2').selectOption('is_set');
    await page.getByLabel('Type of the new step in Then of Step 2').selectOption('add_to_group');
    await page.getByRole('button', { name: 'Add a step to Then of Step 2' }).click();
    await page
      .getByRole('listitem', { name: 'Step 2 › Then 1: Add to group' })
      .getByLabel('Group')
      .selectOption({ label: 'Welcomed' });

    await page.getByRole('button', { name: 'Show the preview of Step 1' }).click();
    await page
      .frameLocator('iframe[title="Desktop preview"]')
      .getByText('Thanks for signing up, Preview!')
      .waitFor({ timeout: 30_000 });

    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.waitForURL(/\/app\/automations\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'Welcome off' }).waitFor();
    await shoot('automation-builder', 'automation-builder-390');

    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Welcome on' }).waitFor();
    await page.getByText('This automation is on.').waitFor();

    const res = await fetch(`${s.url}/f/${form.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: 'nia@example.com', first_name: 'Nia' }),
    });
    assert.equal(res.status, 200, await res.text());
    await sink.waitFor(() => sink.messages.some((m) => m.to.includes('nia@example.com')), 20_000);
    const mail = sink.messages.find((m) => m.to.includes('nia@example.com'))!.parsed!;
    assert.equal(mail.subject, 'Welcome, Nia');
    assert.match(mail.html || '', /Thanks for signing up, Nia!/);
    assert.equal(mail.from?.value[0]?.address, 'hello@acme.test');
    await until('the run to complete', () =>
      s.db.selectFrom('automation_runs').select('id').where('status', '=', 'completed').executeTakeFirst(),
    );

    const joined = await s.db
      .selectFrom('subscriber_groups')
      .innerJoin('subscribers', 'subscribers.id', 'subscriber_groups.subscriber_id')
      .select('email')
      .where('group_id', '=', welcomed.id)
      .execute();
    assert.deepEqual(joined, [{ email: 'nia@example.com' }], 'the condition took the then branch');

    await page.getByRole('tab', { name: 'Activity' }).click();
    const run = page.getByRole('table', { name: 'Runs' }).locator('tr[data-status="completed"]');
    await run.getByRole('link', { name: 'nia@example.com' }).waitFor();
    const sent = page.getByRole('table', { name: 'Emails' }).getByRole('row', { name: /^Step 1 Welcome, / });
    assert.match(await sent.innerText(), /\b1\b/);
    await shoot('automation-activity');

    // no run in progress: Turn off has nothing to cancel and acts without asking
    await page.getByRole('button', { name: 'Turn off' }).click();
    await page.getByRole('heading', { name: 'Welcome off' }).waitFor();
    assert.equal(await page.getByRole('alertdialog').count(), 0, 'nothing to lose, nothing asked');
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('heading', { name: 'Welcome on' }).waitFor();

    await page.getByRole('link', { name: '← Automations' }).click();
    const row = page.getByRole('table', { name: 'Automations' }).getByRole('row', { name: /Welcome/ });
    await row.getByText('Submits form “Newsletter signup”').waitFor();
    const toggle = row.getByRole('switch', { name: 'Welcome enabled' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');
    await shoot('automations', 'automations-390');

    // off from the list: the switch turns at the click, while the server's answer is still held back
    const enabled = async () =>
      (
        await s.db
          .selectFrom('automations')
          .select('enabled')
          .where('account_id', '=', accountId)
          .executeTakeFirstOrThrow()
      ).enabled;
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    await page.route('**/app/api/automations/*/disable', async (route) => {
      await held;
      await route.continue();
    });
    await toggle.click();
    await page.waitForFunction(
      (label) => document.querySelector(`[aria-label="${label}"]`)?.getAttribute('aria-checked') === 'false',
      'Welcome enabled',
      { timeout: 3000 },
    );
    await toggle.click(); // ignored while the first change is on its way
    answer();
    await until('the automation is off', async () => (await enabled()) === false);
    await page.unroute('**/app/api/automations/*/disable');
    await page.waitForTimeout(300); // the list read after the answer, and a second change had the click not been ignored
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    assert.equal(await enabled(), false);
    await toggle.click();
    await until('the automation is on again', async () => (await enabled()) === true);
    await page.waitForFunction(
      (label) => document.querySelector(`[aria-label="${label}"]`)?.getAttribute('aria-checked') === 'true',
      'Welcome enabled',
    );

    // a run in progress: turning off would cancel it, so the page asks first (in place, not a browser dialog)
    const done = await s.db
      .selectFrom('automation_runs')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    await s.db
      .insertInto('automation_runs')
      .values({
        account_id: accountId,
        automation_id: done.automation_id,
        subscriber_id: done.subscriber_id,
        trigger_event_id: crypto.randomUUID(),
        current_step: '0',
        next_run_at: new Date(Date.now() + 86_400_000),
      })
      .execute();
    await page.reload();
    page.on('dialog', () => assert.fail('no browser dialog'));
    await toggle.click();
    const ask = page.getByRole('alertdialog', { name: 'Turn Welcome off' });
    await ask.getByText('1 run in progress will be canceled').waitFor();
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await toggle.getAttribute('aria-checked'), 'true');
    assert.equal(await enabled(), true);
    await toggle.click();
    await ask.getByRole('button', { name: 'Turn off' }).click();
    await until('the automation is off after the question', async () => (await enabled()) === false);
  });
});
