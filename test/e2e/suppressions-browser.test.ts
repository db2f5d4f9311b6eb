// The Suppressions page and the campaign page's "Retry failed (N)" in a real browser: add an address,
// see a bad one refused, upload a CSV and read its summary, a bounced subscriber listed without a Remove
// button, remove an entry after its confirmation, export; then retry a sent campaign's failures with the
// interrupted ones included through the confirmation that names how many.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { join } from 'node:path';
import { SHOTS, assertPageFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

describe('suppressions and retrying failures in the dashboard (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser({ viewport: { width: 1280, height: 900 } });

  test('add, CSV upload, remove after a confirmation, export; bounced listed from the subscriber', async () => {
    const { s, page } = session;
    const accountId = await createOwner(page, s);
    await s.db
      .insertInto('subscribers')
      .values({ account_id: accountId, email: 'gone@example.org', status: 'bounced', custom_fields: '{}' })
      .execute();

    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByRole('heading', { name: 'Suppressions' }).waitFor();
    await page.getByRole('cell', { name: 'gone@example.org', exact: true }).waitFor();
    await page.getByLabel('Address to suppress').fill('not an address');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.locator('.field-error').waitFor();
    await page.getByLabel('Address to suppress').fill('ada@example.org');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByRole('cell', { name: 'ada@example.org', exact: true }).waitFor();

    await page.getByLabel('Upload a CSV of addresses').setInputFiles({
      name: 'list.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email\nbob@example.org\nnope\nada@example.org\ncy@example.org\n'),
    });
    await page.getByText('2 addresses added, 1 already listed, 1 not an address (row 3: nope).').waitFor();
    await page.getByRole('cell', { name: 'cy@example.org', exact: true }).waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'suppressions.png'), fullPage: true });
    await assertPageFitsPhone(page, 'suppressions');

    const bounced = page.getByRole('row', { name: /gone@example\.org Bounced/ });
    await bounced.waitFor();
    assert.equal(await bounced.getByRole('button').count(), 0);

    await page.getByRole('button', { name: 'Remove ada@example.org' }).click();
    await page.getByText('Remove ada@example.org?').waitFor();
    await page.getByRole('button', { name: 'Remove from list' }).click();
    await page.getByRole('cell', { name: 'ada@example.org', exact: true }).waitFor({ state: 'detached' });

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    const csv = await (await page.request.get(s.url + href)).text();
    assert.match(csv, /^id,email,reason,subscriber_id,created_at\n/);
    assert.match(csv, /,cy@example\.org,manual,,/);
    assert.match(csv, /,gone@example\.org,bounced,/);
    assert.doesNotMatch(csv, /ada@example\.org/);
  });

  test('"Retry failed (N)" names how many and includes interrupted ones only when ticked', async () => {
    const { s, page } = session;
    const { id: accountId } = await s.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
    const subs = await s.db
      .insertInto('subscribers')
      .values(
        ['f1', 'f2', 'i1', 'ok'].map((n) => ({ account_id: accountId, email: `${n}@retry.test`, custom_fields: '{}' })),
      )
      .returning(['id', 'email'])
      .execute();
    const c = await s.db
      .insertInto('campaigns')
      .values({
        account_id: accountId,
        name: 'Flaky send',
        subject: 'Hi',
        content_html: '<p>Hi</p>',
        from_email: 'news@example.com',
        status: 'sent',
        delivery: 'instant',
        started_at: new Date(),
        finished_at: new Date(),
        created_at: new Date(),
        updated_at: new Date(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ends = {
      'f1@retry.test': 'failed',
      'f2@retry.test': 'failed',
      'i1@retry.test': 'interrupted',
      'ok@retry.test': 'sent',
    } as const;
    await s.db
      .insertInto('campaign_recipients')
      .values(
        subs.map((x) => ({
          campaign_id: c.id,
          account_id: accountId,
          subscriber_id: x.id,
          email: x.email,
          state: ends[x.email as keyof typeof ends],
          failure: ends[x.email as keyof typeof ends] === 'failed' ? ('expired' as const) : null,
          attempts: 3,
        })),
      )
      .execute();

    await page.goto(`${s.url}/app/campaigns/${c.id}`);
    await page.getByRole('button', { name: 'Retry failed (2)' }).click();
    await page.getByRole('heading', { name: 'Send again to 2 recipients?' }).waitFor();
    await page.getByLabel(/Also the 1 recipient interrupted mid-send/).check();
    await page.getByRole('heading', { name: 'Send again to 3 recipients?' }).waitFor();
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'campaign-retry.png') });
    await page.getByRole('button', { name: 'Retry 3 recipients' }).click();
    await page.getByRole('heading', { name: /Send again to/ }).waitFor({ state: 'detached' });
    const rows = await s.db
      .selectFrom('campaign_recipients')
      .select(['email', 'state', 'previous_errors'])
      .where('campaign_id', '=', c.id)
      .orderBy('email')
      .execute();
    for (const r of rows) assert.notEqual(r.state, 'failed', r.email);
    assert.notEqual(rows.find((r) => r.email === 'i1@retry.test')!.state, 'interrupted');
    assert.equal(rows.find((r) => r.email === 'ok@retry.test')!.previous_errors.length, 0);
    assert.equal(rows.find((r) => r.email === 'f1@retry.test')!.previous_errors.length, 1);
  });
});
