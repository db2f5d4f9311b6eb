// The campaign report's late bounces and Settings' bounce setup in a real browser: a DSN delivered to the
// listener after the campaign was sent shows up in the report with its status code and diagnostic; the
// owner sets the account's own bounce mailbox (a bad URL is told at the field, the URL is never shown
// back, a poll that fails shows why) and removes it after confirming.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sendCampaignTo } from '../support/campaigns.ts';
import { SHOTS, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';
import { deliver, dsn, inboundPort } from '../support/inbound.ts';
import { restClient } from '../support/server.ts';
import { until } from '../support/until.ts';

describe('late bounces in the campaign report and Settings (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({
    sink: true,
    env: {
      BOUNCE_DOMAIN: 'bounces.example.test',
      INBOUND_SMTP_PORT: 0,
      ALLOW_PRIVATE_SMTP_RELAYS: true,
      BOUNCE_IMAP_POLL_MS: 200,
    },
  });

  test('a DSN after the send appears in the report; Settings shows the listener', async () => {
    const { s, page, sink } = session;
    const accountId = await createOwner(page, s);
    const api = restClient(s.url, (await s.newKey(accountId)).key);
    const emails = ['gone@example.com', 'full@example.com', 'fine@example.com'];
    const sent = await sendCampaignTo(s.db, api, accountId, emails, { from_email: 'news@example.com' });
    await sink.waitFor(() => sink.total() === 3);
    const returnPath = (to: string) => sink.messages.find((m) => m.to[0] === to)!.from;
    const port = inboundPort();
    await deliver(
      port,
      '',
      [returnPath(emails[0]!)],
      dsn({
        to: returnPath(emails[0]!),
        rcpt: emails[0]!,
        status: '5.1.1',
        diagnostic: '550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
        messageId: sent.messageIds.get(emails[0]!)!,
      }),
    );
    await deliver(
      port,
      '',
      [returnPath(emails[1]!)],
      dsn({
        to: returnPath(emails[1]!),
        rcpt: emails[1]!,
        status: '4.2.2',
        diagnostic: '452 4.2.2 Mailbox full',
        messageId: sent.messageIds.get(emails[1]!)!,
      }),
    );

    await page.goto(`${s.url}/app/campaigns/${sent.campaignId}`);
    const table = page.getByRole('table', { name: 'Late bounces and complaints' });
    await table.getByRole('row', { name: /gone@example\.com.*Bounced.*5\.1\.1.*User unknown/ }).waitFor();
    await table.getByRole('row', { name: /full@example\.com.*Soft bounce.*4\.2\.2/ }).waitFor();
    if (SHOTS) {
      await page.getByRole('heading', { name: 'Late bounces and complaints' }).scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'late-bounces-report.png') });
    }

    await page.getByRole('link', { name: 'Settings' }).click();
    const setup = page.getByRole('region', { name: 'Bounces and complaints' });
    await setup.getByText('bounces.example.test').waitFor();
    // this instance, and the same listener in the list of every live instance
    await setup
      .getByText(/Listening on 127\.0\.0\.1:\d+/)
      .first()
      .waitFor();
    await setup.getByText('Bounced: 1 · Soft bounces: 1').waitFor();

    // the account's own mailbox: nothing listens on port 1, so its poll fails and says so
    const url = setup.getByLabel('Mailbox URL');
    await url.fill('pop3://bounces:pw@127.0.0.1/INBOX');
    await setup.getByRole('button', { name: 'Save mailbox' }).click();
    await setup.getByText(/must be an imap:\/\/ or imaps:\/\/ URL/).waitFor();
    await url.fill('imap://bounces:Hunter-2-pw@127.0.0.1:1/INBOX?starttls=false');
    await setup.getByRole('button', { name: 'Save mailbox' }).click();
    // saved: shown by its host (already polled, or not yet)
    await setup.getByText(/^127\.0\.0\.1(, last checked|: )/).waitFor();
    // the page looks again every 30 s; once the poll has failed, a reload shows why at once
    await until('the first poll', () =>
      s.db.selectFrom('bounce_mailboxes').select('last_error').where('last_error', 'is not', null).executeTakeFirst(),
    );
    await page.reload();
    await setup.getByText(/127\.0\.0\.1: .*ECONNREFUSED/).waitFor();
    await setup
      .getByText(/127\.0\.0\.1:\d+/)
      .first()
      .waitFor();
    if (SHOTS) {
      await page.setViewportSize({ width: 1366, height: 900 });
      await setup.screenshot({ path: join(SHOTS, 'settings-bounces.png') });
      await page.setViewportSize({ width: 390, height: 844 });
      await setup.screenshot({ path: join(SHOTS, 'settings-bounces-390.png') });
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    assert.ok(!(await page.content()).includes('Hunter-2-pw'), 'the password is never shown back');
    await setup.getByRole('button', { name: "Remove the account's own bounce mailbox" }).click();
    await setup.getByRole('button', { name: 'Remove', exact: true }).click();
    await setup.getByLabel('Mailbox URL').waitFor();
  });
});
