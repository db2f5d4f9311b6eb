// A segment edited in a real browser: open a saved segment, see the operators the chosen field's type
// takes, change a rule and watch the live count of the draft change before saving, save it (PUT), and
// find the new rules and count in the list. With SCREENSHOTS=1 it writes docs/screenshots/segment-editor.png
// and segment-editor-390.png (the phone view must not scroll sideways).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import * as fields from '../../src/domain/subscribers/fields.ts';
import * as segments from '../../src/domain/segments/segments.ts';
import { SHOTS, assertFitsPhone, browserSkip, createOwner, dashboardInBrowser } from '../support/browser.ts';

describe('the segment editor (Chromium)', { skip: browserSkip() }, () => {
  const session = dashboardInBrowser();

  test('open a segment, operators by field type, the live count follows the draft, save', async () => {
    const { s, page } = session;
    const accountId = await createOwner(page, s);
    await fields.create(s.db, accountId, { key: 'orders', name: 'Orders', type: 'number' });
    // 24 people: every third unsubscribed (8); orders 0..23
    const rows = Array.from({ length: 24 }, (_, i) => ({
      account_id: accountId,
      email: `reader${String(i).padStart(2, '0')}@example.com`,
      status: i % 3 === 0 ? ('unsubscribed' as const) : ('active' as const),
      custom_fields: JSON.stringify({ orders: i }),
    }));
    await s.db.insertInto('subscribers').values(rows).execute();
    const seg = await segments.create(s.db, accountId, {
      name: 'Engaged readers',
      filter: { match: 'all', rules: [{ field: 'status', operator: 'eq', value: 'active' }] },
    });

    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('link', { name: 'Engaged readers' }).click();
    await page.getByRole('heading', { name: 'Engaged readers' }).waitFor();
    await page.getByText('16 subscribers match now.').waitFor();

    const editor = page.locator('form', { has: page.getByRole('heading', { name: 'Edit segment' }) });
    await editor.getByRole('button', { name: 'Add rule' }).click();
    const rule = editor.getByRole('group', { name: 'Rule 2' });
    await rule.getByLabel('Field').selectOption({ label: 'Orders' });
    const ops = await rule.getByLabel('Operator').locator('option').allTextContents();
    assert.ok(ops.includes('at least') && !ops.includes('contains'), `number operators only: ${ops.join(', ')}`);
    await editor.getByText('Finish each rule to see how many subscribers match.').waitFor();
    await rule.getByLabel('Operator').selectOption('gte');
    await rule.getByLabel('Value').fill('12');
    // active with orders 12..23: 13, 14, 16, 17, 19, 20, 22, 23
    await editor.getByText('8 subscribers match now.').waitFor();
    await editor.getByLabel('Match').selectOption('any');
    // active (16) or orders ≥ 12 (adds 12, 15, 18, 21)
    await editor.getByText('20 subscribers match now.').waitFor();
    assert.equal((await segments.get(s.db, accountId, seg.id)).subscriber_count, 16, 'nothing saved yet');

    await editor.getByLabel('Segment name').fill('Active or big buyers');
    await editor.getByRole('button', { name: 'Save changes' }).click();
    await editor.getByText('Segment saved.').waitFor();
    const saved = await segments.get(s.db, accountId, seg.id);
    assert.equal(saved.name, 'Active or big buyers');
    assert.deepEqual(saved.filter, {
      match: 'any',
      rules: [
        { field: 'status', operator: 'eq', value: 'active' },
        { field: 'custom_fields.orders', operator: 'gte', value: 12 },
      ],
    });
    assert.equal(saved.subscriber_count, 20);

    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'segment-editor.png'), fullPage: true });
    const phone = await page.context().newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(page.url());
    await phone.getByText('20 subscribers match now.').waitFor();
    await assertFitsPhone(phone, 'the editor');
    if (SHOTS) await phone.screenshot({ path: join(SHOTS, 'segment-editor-390.png'), fullPage: true });
    await phone.close();

    await page.getByRole('link', { name: '← Segments' }).click();
    const row = page
      .getByRole('table', { name: 'Segments' })
      .getByRole('row')
      .filter({ hasText: 'Active or big buyers' });
    await row.waitFor();
    assert.match((await row.textContent())!, /Active or big buyers20any of 2/);
  });
});
