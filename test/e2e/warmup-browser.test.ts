// Settings → Warm-up in a real browser: a bad domain is shown next to its field, a plan appears with
// today's cap and use, and deleting it after the confirmation empties the list.
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

describe('warm-up plans in Settings (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ phone: true });

  test('create a plan, see today’s cap, delete it', async () => {
    const { s, page } = session;
    await createOwner(page, s);
    await page.getByRole('link', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Warm-up' });
    await section.getByText('No domain is being warmed up.').waitFor();

    await section.getByLabel('Domain').fill('not a domain');
    await section.getByRole('button', { name: 'Create plan' }).click();
    await section.getByText('Domain must be a domain name such as mail.example.com').waitFor();

    await section.getByLabel('Domain').fill('News.Example.com');
    await section.getByLabel('Day 1 cap').fill('50');
    await section.getByRole('button', { name: 'Create plan' }).click();
    const row = section.getByRole('row', { name: /news\.example\.com/ });
    await row.getByText('Day 1 of 10: 0 of 50 used').waitFor();
    await row.getByText('50 on day 1, ×2 a day, no cap after day 10').waitFor();
    if (SHOTS) await section.screenshot({ path: join(SHOTS, 'warmup.png') });
    await session.phone.goto(page.url());
    await session.phone.getByRole('region', { name: 'Warm-up' }).getByText('Day 1 of 10: 0 of 50 used').waitFor();
    await assertFitsPhone(session.phone, 'settings');
    if (SHOTS)
      await session.phone.getByRole('region', { name: 'Warm-up' }).screenshot({ path: join(SHOTS, 'warmup-390.png') });

    await row.getByRole('button', { name: 'Delete the warm-up of news.example.com' }).click();
    await section.getByText('End the warm-up of news.example.com?', { exact: false }).waitFor();
    await section.getByRole('button', { name: 'Delete', exact: true }).click();
    await section.getByText('No domain is being warmed up.').waitFor();
  });
});
