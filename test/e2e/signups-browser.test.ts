// Double opt-in finished from the dashboard in the default setup (the outbox holds the confirmation mail,
// its link disarmed): a sign-up on the public form shows on the Overview and in the Forms page's pending
// list; Resend mails it again (a second captured message); "Confirm…" asks for a reason, and the person
// becomes an active subscriber with the reason recorded. With SCREENSHOTS=1: docs/screenshots/signups.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as forms from '../../src/domain/forms/forms.ts';
import { SHOTS, assertPageFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

describe('pending sign-ups in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser();

  test('sign up → pending on the overview and the list → resend → confirm by hand with a reason', async () => {
    const { s, page } = session;
    const accountId = await createOwner(page, s);
    const form = await forms.create(s.db, accountId, { name: 'Tea letter', double_opt_in: true });
    const signUp = await fetch(`${s.url}/f/${form.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=lin%40example.com',
    });
    assert.equal(signUp.status, 200);
    const mails = () => s.db.selectFrom('outbox').select('id').where('to_addr', '=', 'lin@example.com').execute();
    assert.equal((await mails()).length, 1);

    await page.reload();
    await page.getByRole('link', { name: '1 sign-up waiting for confirmation' }).click();
    const list = page.getByRole('table', { name: 'Sign-ups' });
    const row = list.getByRole('row', { name: /lin@example\.com/ });
    await row.getByText('Tea letter').waitFor();

    // just mailed: a resend now is refused with a reason, not silently
    await row.getByRole('button', { name: 'Resend to lin@example.com' }).click();
    await page.getByText('A confirmation was sent less than a minute ago').waitFor();
    await s.db
      .updateTable('pending_signups')
      .set({ last_sent_at: new Date(Date.now() - 120_000) })
      .execute();
    await row.getByRole('button', { name: 'Resend to lin@example.com' }).click();
    await page.getByText('Confirmation sent again to lin@example.com.').waitFor();
    assert.equal((await mails()).length, 2);

    await row.getByRole('button', { name: 'Confirm lin@example.com by hand' }).click();
    const ask = page.getByRole('alertdialog', { name: 'Confirm lin@example.com by hand' });
    await ask.getByRole('button', { name: 'Confirm sign-up' }).click();
    await ask.getByText(/Say why this sign-up is confirmed/).waitFor();
    await ask.getByLabel('Reason').fill('Asked us at the tasting, in person');
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'signups.png'), fullPage: true });
    await ask.getByRole('button', { name: 'Confirm sign-up' }).click();
    await page.getByText('lin@example.com is confirmed and subscribed.').waitFor();
    await page.getByText('No sign-up is waiting for its confirmation.').waitFor();
    await page.getByRole('tab', { name: 'Confirmed' }).click();
    await list.getByText('by hand, ada@acme.test: Asked us at the tasting, in person').waitFor();

    const subscriber = await s.db
      .selectFrom('subscribers')
      .select('status')
      .where('account_id', '=', accountId)
      .where('email', '=', 'lin@example.com')
      .executeTakeFirstOrThrow();
    assert.equal(subscriber.status, 'active');
    await assertPageFitsPhone(page, 'the forms page with sign-ups');
  });
});
