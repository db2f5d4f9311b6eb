// Pending double opt-in sign-ups as the marketer sees them: listed by state, mailed again with a fresh
// link (not twice a minute, never once confirmed), confirmed by hand with a reason that stays recorded,
// and never another account's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import { NotFound, StateConflict, Validation } from '../../../src/domain/errors.ts';
import * as forms from '../../../src/domain/forms/forms.ts';
import * as pendingSignups from '../../../src/domain/forms/pendingSignups.ts';
import * as signups from '../../../src/domain/forms/signups.ts';
import type { MailTransport, OutgoingMessage } from '../../../src/mail/transport.ts';
import { migratedDb } from '../../support/db.ts';
import { createGroup } from '../../support/rows.ts';

const { db } = await migratedDb();
const sent: OutgoingMessage[] = [];
const transport: MailTransport = {
  kind: 'outbox',
  async send(msg) {
    sent.push(msg);
    return { ok: true, messageId: `m${sent.length}@test` };
  },
  async close() {},
};
const mail = {
  transport,
  config: {
    secret: 'test-secret-of-at-least-32-characters!!',
    publicUrl: 'http://forms.test',
    MAIL_FROM: 'n@forms.test',
  },
};

async function account(name: string) {
  const accountId = (await accounts.create(db, { name }, 1000)).id;
  const groupId = await createGroup(db, accountId, 'Readers');
  const form = await forms.create(db, accountId, { name: `${name} signup`, group_ids: [groupId], double_opt_in: true });
  return { accountId, groupId, formId: form.id };
}

const acme = await account('Acme');
const other = await account('Other');
for (const email of ['ana@example.com', 'bo@example.com']) await signups.submit(db, mail, acme.formId, { email });
await signups.submit(db, mail, other.formId, { email: 'ana@example.com' });

const pendingOf = async (accountId: string, query: Record<string, unknown> = {}) =>
  (await pendingSignups.list(db, accountId, query)).items;

test("the list shows the account's pending sign-ups only, with their form; counted for the overview", async () => {
  const list = await pendingOf(acme.accountId);
  assert.deepEqual(list.map((s) => s.email).sort(), ['ana@example.com', 'bo@example.com']);
  assert.ok(list.every((s) => s.status === 'pending' && s.form_name === 'Acme signup' && s.last_sent_at));
  assert.equal(await pendingSignups.countPending(db, acme.accountId), 2);
  assert.equal((await pendingOf(acme.accountId, { status: 'confirmed' })).length, 0);
  // the same address signed up with another account is that account's business
  assert.equal((await pendingOf(other.accountId)).length, 1);
  await assert.rejects(pendingSignups.list(db, acme.accountId, { status: 'lost' }), Validation);
});

test('resend mails a fresh link, not twice within a minute; an expired sign-up becomes pending again', async () => {
  const bo = (await pendingOf(acme.accountId)).find((s) => s.email === 'bo@example.com')!;
  await assert.rejects(pendingSignups.resend(db, mail, acme.accountId, bo.id), StateConflict, 'just mailed');
  await db
    .updateTable('pending_signups')
    .set({ last_sent_at: new Date(Date.now() - 120_000) })
    .where('id', '=', bo.id)
    .execute();
  await db
    .updateTable('pending_signups')
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where('id', '=', bo.id)
    .execute();
  assert.equal((await pendingOf(acme.accountId, { status: 'expired' }))[0]?.id, bo.id);
  const before = sent.length;
  const again = await pendingSignups.resend(db, mail, acme.accountId, bo.id);
  assert.equal(sent.length, before + 1);
  assert.equal(sent.at(-1)!.to, 'bo@example.com');
  assert.equal(again.status, 'pending');
  assert.ok(again.expires_at.getTime() > Date.now() + 6 * 86_400_000, 'a new 7-day window');
  // the resent link works
  const token = /\/f\/confirm\/([\w.-]+)/.exec(sent.at(-1)!.html ?? '')![1]!;
  assert.equal((await signups.confirm(db, mail.config, token)).status, 'confirmed');
  await assert.rejects(pendingSignups.resend(db, mail, acme.accountId, bo.id), StateConflict, 'confirmed');
});

test("confirm by hand: a reason is required; the subscriber joins the form's groups; who and why are kept", async () => {
  const ana = (await pendingOf(acme.accountId)).find((s) => s.email === 'ana@example.com')!;
  await assert.rejects(pendingSignups.confirmByHand(db, acme.accountId, ana.id, 'ada@acme.test', {}), Validation);
  await assert.rejects(
    pendingSignups.confirmByHand(db, other.accountId, ana.id, 'eve@other.test', { reason: 'mine now' }),
    NotFound,
  );
  const done = await pendingSignups.confirmByHand(db, acme.accountId, ana.id, 'ada@acme.test', {
    reason: 'Signed the paper form at the fair',
  });
  assert.equal(done.status, 'confirmed');
  assert.deepEqual([done.confirmed_by, done.confirm_reason], ['ada@acme.test', 'Signed the paper form at the fair']);
  const member = await db
    .selectFrom('subscribers as s')
    .innerJoin('subscriber_groups as g', 'g.subscriber_id', 's.id')
    .select(['s.status', 'g.group_id'])
    .where('s.account_id', '=', acme.accountId)
    .where('s.email', '=', 'ana@example.com')
    .executeTakeFirstOrThrow();
  assert.deepEqual(member, { status: 'active', group_id: acme.groupId });
  await assert.rejects(
    pendingSignups.confirmByHand(db, acme.accountId, ana.id, 'ada@acme.test', { reason: 'again' }),
    StateConflict,
  );
  assert.equal(await pendingSignups.countPending(db, acme.accountId), 0);
  // the other account's pending sign-up of the same address is untouched
  assert.equal((await pendingOf(other.accountId))[0]?.status, 'pending');
});
