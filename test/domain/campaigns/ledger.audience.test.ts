// Who a campaign goes to, read both ways the audience can read group membership (ledgerQueries.GroupRead):
// from member_of on each subscriber row, or by probing the memberships. Both give the same people for
// every mix of small and large groups and a segment, and a group deleted after the campaign named it
// contributes nobody, though its id stays on its former members' rows.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig, type Config } from '../../../src/config.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { audienceCount } from '../../../src/domain/campaigns/ledger.ts';
import * as queries from '../../../src/domain/campaigns/ledgerQueries.ts';
import * as segments from '../../../src/domain/segments/segments.ts';
import * as groups from '../../../src/domain/subscribers/groups.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const config: Config = {
  ...loadConfig({ MAILGROVE_SECRET: 'audience-secret', LOG_LEVEL: 'silent' }, {}),
  secret: 'audience-secret',
};
const { db } = await migratedDb();

describe('The campaign audience', () => {
  test('reads the same people from member_of and from the memberships; a deleted group adds nobody', async () => {
    const acc = (await accounts.create(db, { name: 'Audience reads' }, 100_000)).id;
    const small = (await groups.create(db, acc, { name: 'Small' })).id;
    const big = (await groups.create(db, acc, { name: 'Big' })).id;
    const doomed = (await groups.create(db, acc, { name: 'Doomed' })).id;
    const email = (i: number) => `s${i}@audience.test`;
    const ids: string[] = [];
    for (let i = 0; i < 48; i++) {
      const group_ids = [...(i === 0 ? [small] : []), ...(i < 24 ? [big] : []), ...(i >= 40 ? [doomed] : [])];
      const first_name = [0, 30, 31, 41].includes(i) ? 'Seg' : undefined;
      ids.push((await subscribers.create(db, acc, { email: email(i), group_ids, first_name })).id);
    }
    await subscribers.update(db, acc, ids[5]!, { status: 'unsubscribed' });
    await subscribers.update(db, acc, ids[31]!, { status: 'unsubscribed' });
    const seg = await segments.create(db, acc, {
      name: 'Seg',
      filter: { match: 'all', rules: [{ field: 'first_name', operator: 'eq', value: 'Seg' }] },
    });

    // one member of 48 is probed, half the account is read from the rows
    const readOf = async (g: string[]) => queries.groupReadFor(await groups.membersShare(db, acc, g));
    assert.equal(await readOf([small]), 'members');
    assert.equal(await readOf([big]), 'rows');

    const bigActive = 23; // s0-s23 less the unsubscribed s5
    const cases: [string, string[], boolean, number][] = [
      ['small', [small], false, 1],
      ['big', [big], false, bigActive],
      ['small and big', [small, big], false, bigActive],
      ['small and the segment', [small], true, 3], // s0, s30, s41 (s31 unsubscribed)
      ['big and the segment', [big], true, bigActive + 2],
      ['the doomed group', [doomed], false, 8],
    ];
    for (const [name, g, withSegment, expected] of cases) {
      const inSegments = withSegment ? (await segments.matchingAny(db, acc, [seg.id])).where : undefined;
      for (const read of ['rows', 'members'] as const) {
        const { size } = await queries.audienceSize(db, acc, g, inSegments, read);
        assert.equal(size, expected, `${name}, read from ${read}`);
      }
      assert.equal(await audienceCount(db, config.secret, acc, g, withSegment ? [seg.id] : []), expected, name);
    }

    // named by a scheduled campaign, then deleted: its former members keep its id on their rows, and get nothing
    const c = await campaigns.create(db, acc, {
      name: 'After a delete',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [doomed, small],
    });
    await campaigns.schedule(db, config, acc, c.id, {
      delivery: 'scheduled',
      scheduled_at: new Date(Date.now() + 200).toISOString(),
    });
    await groups.remove(db, acc, doomed);
    const stale = await db
      .selectFrom('subscribers')
      .select('email')
      .where('account_id', '=', acc)
      .where(({ eb, val }) => eb(val(doomed), '=', eb.fn.any('member_of')))
      .execute();
    assert.equal(stale.length, 8);
    for (const read of ['rows', 'members'] as const)
      assert.equal((await queries.audienceSize(db, acc, [doomed, small], undefined, read)).size, 1, read);
    await new Promise((r) => setTimeout(r, 250));
    assert.ok((await campaigns.startDue(db, config)).includes(c.id));
    const frozen = await db.selectFrom('campaign_recipients').select('email').where('campaign_id', '=', c.id).execute();
    assert.deepEqual(
      frozen.map((r) => r.email),
      [email(0)],
    );

    // a large audience with a segment is frozen from the rows: the same people as counted
    const wide = await campaigns.create(db, acc, {
      name: 'Wide',
      subject: 's',
      content_html: '<p>x</p>',
      group_ids: [big],
      segment_ids: [seg.id],
    });
    await campaigns.schedule(db, config, acc, wide.id, { delivery: 'instant' });
    const wideRows = await db
      .selectFrom('campaign_recipients')
      .select('email')
      .where('campaign_id', '=', wide.id)
      .execute();
    const expected = [...Array.from({ length: 24 }, (_, i) => i).filter((i) => i !== 5), 30, 41].map(email);
    assert.deepEqual(wideRows.map((r) => r.email).sort(), expected.sort());
  });
});
