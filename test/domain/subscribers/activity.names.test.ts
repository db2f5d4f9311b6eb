// The dashboard's subscriber history names the campaign an email came from ("Opened “June newsletter”"),
// read for the page's items; an event of a deleted campaign, or with an id that is not one, stays unnamed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as campaigns from '../../../src/domain/campaigns/campaigns.ts';
import { recordEvents } from '../../../src/domain/events/log.ts';
import * as activity from '../../../src/domain/subscribers/activity.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';
import { newAccount } from '../../support/domain.ts';

const { db } = await migratedDb();

test('Activity › email events carry the campaign’s name for the dashboard; unknown ids stay unnamed', async () => {
  const acc = await newAccount(db, 'Names');
  const other = await newAccount(db, 'Other');
  const sub = await subscribers.create(db, acc, { email: 'reader@names.test' });
  const june = await campaigns.create(db, acc, { name: 'June newsletter' });
  const foreign = await campaigns.create(db, other, { name: 'Not yours' });
  await recordEvents(db, acc, [
    { type: 'email.sent', subscriberId: sub.id, data: { campaign_id: june.id } },
    { type: 'email.opened', subscriberId: sub.id, data: { campaign_id: june.id } },
    { type: 'email.opened', subscriberId: sub.id, data: { campaign_id: foreign.id } },
    { type: 'email.opened', subscriberId: sub.id, data: { campaign_id: 'not-a-uuid' } },
  ]);
  const page = await activity.withNames(db, acc, await activity.ofSubscriber(db, acc, sub.id, { type: undefined }));
  const named = page.items.filter((i) => i.type.startsWith('email.')).map((i) => i.source_name ?? null);
  assert.deepEqual(named.sort(), ['June newsletter', 'June newsletter', null, null].sort());
});
