// Settings → Relays in a real browser: a URL that is not smtp:// is shown next to its field; an added relay
// shows its host and domains but never its password; "Send a test" reaches the relay's SMTP sink; a name
// holding markup is shown as text; removing asks in the page first. Settings → Checks before sending: the
// instance's blocking checks are ticked and fixed, the account adds its own. Screenshots at 1366 and 390 px.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SHOTS, assertPageFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';
import { startSink } from '../support/smtpSink.ts';

const relaySink = await startSink();
after(() => relaySink.close());

describe('relays in Settings (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({
    // SEND_CHECKS=block: the instance's own blocking checks show as fixed in "Checks before sending"
    env: { ALLOW_PRIVATE_SMTP_RELAYS: true, SEND_CHECKS: 'block' },
    viewport: { width: 1366, height: 1000 },
    phone: true,
  });

  test('add a relay, send a test through it, remove it', async () => {
    const { s, page, phone } = session;
    await createOwner(page, s);
    await page.evaluate(() => ((globalThis as any).injected = false));
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Relays' });
    await section.getByText('No relay: all mail leaves through this instance.').waitFor();

    const name = 'Own <img src=x onerror="globalThis.injected=true">';
    await section.getByLabel('Name', { exact: true }).fill(name);
    await section.getByLabel('SMTP URL').fill('https://relay.example.com');
    await section.getByLabel('From domains').fill('news.acme.test, acme.test');
    await section.getByRole('button', { name: 'Add relay' }).click();
    await section.getByText('url must be an smtp:// or smtps:// URL', { exact: false }).first().waitFor();

    const password = 'never-on-the-page';
    await section.getByLabel('SMTP URL').fill(`smtp://mailer:${password}@127.0.0.1:${relaySink.port}?starttls=false`);
    await section.getByRole('button', { name: 'Add relay' }).click();
    const card = section.getByRole('article', { name: `Relay ${name}` });
    await card.getByText('acme.test', { exact: true }).waitFor();
    await card.getByText('with credentials (stored encrypted)').waitFor();
    assert.ok(!(await page.content()).includes(password), 'the password is not on the page');

    await card.getByLabel('Send a test to').fill('qa@acme.test');
    await card.getByRole('button', { name: 'Send a test' }).click();
    await card.getByText('The relay accepted the test', { exact: false }).waitFor();
    assert.equal(relaySink.counts.get('qa@acme.test'), 1);
    assert.equal(await page.evaluate(() => (globalThis as any).injected), false, 'markup in a name never runs');
    if (SHOTS) await section.screenshot({ path: join(SHOTS, 'settings-relays.png') });

    await phone.goto(page.url());
    const phoneSection = phone.getByRole('region', { name: 'Relays' });
    await phoneSection.getByText('acme.test', { exact: true }).waitFor();
    await assertPageFitsPhone(phone, 'Settings with a relay');
    if (SHOTS) await phoneSection.screenshot({ path: join(SHOTS, 'settings-relays-390.png') });

    await card.getByRole('button', { name: `Remove the relay ${name}` }).click();
    await card.getByRole('button', { name: 'Remove', exact: true }).click();
    await section.getByText('No relay: all mail leaves through this instance.').waitFor();
  });

  test("the account makes more checks blocking; the instance's stay fixed", async () => {
    const { s, page } = session;
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Checks before sending' });
    const subject = form.getByLabel('The email has a subject', { exact: false });
    await subject.waitFor();
    assert.equal(await subject.isChecked(), true);
    assert.equal(await subject.isDisabled(), true, 'SEND_CHECKS=block: the instance blocks on it');
    const dmarc = form.getByLabel('The From domain publishes a DMARC record');
    assert.equal(await dmarc.isChecked(), false);
    await dmarc.check();
    await form.getByRole('button', { name: 'Save checks' }).click();
    await form.getByText('Checks saved.').waitFor();
    const row = await s.db.selectFrom('accounts').select('blocking_checks').executeTakeFirstOrThrow();
    assert.deepEqual(row.blocking_checks, ['dmarc']);
    if (SHOTS) await form.screenshot({ path: join(SHOTS, 'settings-blocking-checks.png') });
    await page.reload();
    assert.equal(
      await page
        .getByRole('form', { name: 'Checks before sending' })
        .getByLabel('The From domain publishes a DMARC record')
        .isChecked(),
      true,
    );
  });
});
