// forget_subscriber erases the mail that came home naming the address: unmatched mail anywhere it names
// it (sender, recipient, subject, reason, the kept text, in any case), and the account's records whose
// reason quotes it; mail about anyone else stays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import type { InboundRecord } from '../../../src/domain/feedback/inboundQueries.ts';
import { forgetSubscriber } from '../../../src/domain/forget/forget.ts';
import * as subscribers from '../../../src/domain/subscribers/subscribers.ts';
import { migratedDb } from '../../support/db.ts';

const { db } = await migratedDb();

test('forgetting a subscriber erases the inbound mail that names the address, and only that', async () => {
  const accountId = (await accounts.create(db, { name: 'Erase inbound' }, 100)).id;
  const ada = await subscribers.create(db, accountId, { email: 'Ada.Gone@Example.com' });
  const row = (r: Partial<Parameters<typeof insert>[0]>) =>
    insert({
      account_id: null,
      via: 'smtp',
      outcome: 'unmatched',
      reason: null,
      mail_from: null,
      rcpt_to: null,
      subject: null,
      size: 1,
      raw: null,
      ...r,
    });
  const insert = (r: InboundRecord) =>
    db.insertInto('inbound_mail').values(r).returning('id').executeTakeFirstOrThrow();
  const gone = [
    await row({ mail_from: 'ada.gone@example.com' }),
    await row({ rcpt_to: 'bounce+x@b.example', subject: 'Re: ADA.GONE@EXAMPLE.COM' }),
    await row({
      raw: Buffer.concat([Buffer.from([0, 0xff]), Buffer.from('Final-Recipient: rfc822; ada.gone@example.com\r\n')]),
    }),
    await row({ account_id: accountId, outcome: 'bounced', reason: '5.1.1 550 <ada.gone@example.com>: unknown' }),
  ];
  const kept = [
    await row({ mail_from: 'bob@example.com', raw: Buffer.from('To: bob@example.com\r\n\r\nhi') }),
    await row({ account_id: accountId, outcome: 'bounced', reason: '5.1.1 550 <bob@example.com>: unknown' }),
  ];
  await forgetSubscriber(db, 'secret', accountId, ada.id);
  const left = new Set((await db.selectFrom('inbound_mail').select('id').execute()).map((r) => r.id));
  for (const g of gone) assert.ok(!left.has(g.id), 'erased');
  for (const k of kept) assert.ok(left.has(k.id), 'kept');
});
