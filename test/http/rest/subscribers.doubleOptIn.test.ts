// POST /subscribers with double_opt_in: a pending sign-up (202) and its confirmation mail instead of a
// subscriber; the link creates or updates the subscriber in the groups asked for. Without the flag the
// spec's create answers as before; bad input is a 400; a repeat within minutes mails nothing more.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startServer } from '../../support/server.ts';

const s = await startServer({ after });
s.config.publicUrl = s.url; // confirmation links must reach this server
const { api } = await s.restAccount();
const group = (await api.post('/groups', { name: 'Readers' })).body.data;
await api.post('/fields', { key: 'plan', name: 'Plan', type: 'text' });

const mailsTo = (to: string) =>
  s.db.selectFrom('outbox').selectAll().where('to_addr', '=', to).orderBy('created_at').execute();
const linkIn = (text: string | null) => /(http:\/\/[^\s"]+\/f\/confirm\/[A-Za-z0-9_\-.]+)/.exec(text ?? '')?.[1];

test('double_opt_in: 202 {signup_id, status: pending}, one mail, no subscriber; the link creates it in its groups', async () => {
  const res = await api.post('/subscribers', {
    email: 'Static.Site@example.com',
    first_name: 'Stat',
    group_ids: [group.id],
    custom_fields: { plan: 'pro' },
    time_zone: 'Europe/Lisbon',
    double_opt_in: true,
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.success, true);
  assert.equal(res.body.data.status, 'pending');
  assert.match(res.body.data.signup_id, /^[0-9a-f-]{36}$/);
  assert.equal(res.body.data.confirmation_sent, true);
  assert.equal((await api.get('/subscribers?search=static.site')).body.data.subscribers.length, 0);

  const listed = (await api.get('/signups?status=pending')).body.data.signups;
  assert.deepEqual(
    listed.map((x: any) => [x.id, x.form_id, x.form_name, x.email]),
    [[res.body.data.signup_id, null, null, 'Static.Site@example.com']],
  );

  // a second request within minutes refreshes the sign-up but mails nothing more (the hosted form's guard)
  const again = await api.post('/subscribers', {
    email: 'static.site@example.com',
    double_opt_in: true,
    first_name: 'S',
  });
  assert.equal(again.status, 202);
  assert.equal(again.body.data.signup_id, res.body.data.signup_id);
  assert.equal(again.body.data.confirmation_sent, false);
  const mails = await mailsTo('Static.Site@example.com');
  assert.equal(mails.length, 1);
  assert.equal(mails[0]!.subject, 'Please confirm your subscription');

  const page = await fetch(linkIn(mails[0]!.text)!);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Subscription confirmed/);
  const found = (await api.get('/subscribers?search=static.site')).body.data.subscribers;
  assert.equal(found.length, 1);
  const full = (await api.get(`/subscribers/${found[0].id}`)).body.data;
  assert.equal(full.status, 'active');
  assert.equal(full.first_name, 'S'); // the refreshed data
  assert.deepEqual(
    full.groups.map((g: any) => g.id),
    [],
  ); // the refresh asked for no groups
  const row = await s.db
    .selectFrom('subscribers')
    .select(['source', 'time_zone'])
    .where('id', '=', found[0].id)
    .executeTakeFirstOrThrow();
  assert.deepEqual(row, { source: 'api', time_zone: null });
});

test('confirming updates an existing subscriber: groups, fields and zone from the sign-up', async () => {
  const existing = await api.post('/subscribers', { email: 'kept@example.com', first_name: 'Kept' });
  assert.equal(existing.status, 201);
  const res = await api.post('/subscribers', {
    email: 'kept@example.com',
    group_ids: [group.id],
    custom_fields: { plan: 'team' },
    time_zone: 'Asia/Tokyo',
    double_opt_in: true,
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const confirmed = await api.post(`/signups/${res.body.data.signup_id}/confirm`, { reason: 'test' });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.data.subscriber_id, existing.body.data.id);
  const full = (await api.get(`/subscribers/${existing.body.data.id}`)).body.data;
  assert.equal(full.first_name, 'Kept');
  assert.deepEqual(full.custom_fields, { plan: 'team' });
  assert.deepEqual(
    full.groups.map((g: any) => g.id),
    [group.id],
  );
  const row = await s.db
    .selectFrom('subscribers')
    .select('time_zone')
    .where('id', '=', existing.body.data.id)
    .executeTakeFirstOrThrow();
  assert.equal(row.time_zone, 'Asia/Tokyo');
});

test('form_id: the form’s confirmation mail, groups and counts; another account’s form is a 400', async () => {
  const formGroup = (await api.post('/groups', { name: 'Form group' })).body.data;
  const form = (
    await api.post('/forms', {
      name: 'Site',
      double_opt_in: true,
      group_ids: [formGroup.id],
      confirmation_subject: 'Confirm for Site',
      content_source: '<p>Click <a href="{{ confirm_url }}">here</a></p>',
    })
  ).body.data;
  const res = await api.post('/subscribers', { email: 'viaform@example.com', double_opt_in: true, form_id: form.id });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  const [mail] = await mailsTo('viaform@example.com');
  assert.equal(mail!.subject, 'Confirm for Site');
  const page = await fetch(/href="([^"]+)"/.exec(mail!.html!)![1]!);
  assert.equal(page.status, 200);
  const sub = (await api.get('/subscribers?search=viaform')).body.data.subscribers[0];
  const full = (await api.get(`/subscribers/${sub.id}`)).body.data;
  assert.deepEqual(
    full.groups.map((g: any) => g.id),
    [formGroup.id],
  );
  assert.equal((await api.get(`/forms/${form.id}`)).body.data.stats.confirmations, 1);

  const other = await s.restAccount();
  const foreign = await other.api.post('/subscribers', {
    email: 'x@example.com',
    double_opt_in: true,
    form_id: form.id,
  });
  assert.equal(foreign.status, 400);
  assert.deepEqual(Object.keys(foreign.body.data), ['form_id']);
});

test('bad input is a 400 naming the field; without the flag (or false) the spec’s create answers 201', async () => {
  for (const [body, field] of [
    [{ email: 'not-an-email', double_opt_in: true }, 'email'],
    [{ email: 'a@example.com', double_opt_in: 'yes' }, 'double_opt_in'],
    [{ email: 'a@example.com', double_opt_in: true, form_id: 'nope' }, 'form_id'],
    [{ email: 'a@example.com', double_opt_in: true, custom_fields: { nope: 1 } }, 'custom_fields.nope'],
    [{ email: 'a@example.com', double_opt_in: true, group_ids: ['00000000-0000-4000-8000-000000000000'] }, 'group_ids'],
    [{ email: 'a@example.com', double_opt_in: true, time_zone: 'Mars/Olympus' }, 'time_zone'],
  ] as const) {
    const res = await api.post('/subscribers', body);
    assert.equal(res.status, 400, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    assert.ok(
      Object.keys(res.body.data).some((k) => k.startsWith(field)),
      JSON.stringify(res.body.data),
    );
  }
  assert.equal(
    (await s.db.selectFrom('pending_signups').select('id').where('email', '=', 'a@example.com').execute()).length,
    0,
  );

  const plain = await api.post('/subscribers', { email: 'plain@example.com', double_opt_in: false });
  assert.equal(plain.status, 201);
  assert.equal(plain.body.data.email, 'plain@example.com');
  assert.equal((await api.post('/subscribers', { email: 'plain@example.com' })).status, 409);
  assert.equal((await mailsTo('plain@example.com')).length, 0);
  // the pending sign-up is the account's own: another account does not see it
  const other = await s.restAccount();
  assert.equal((await other.api.get('/signups')).body.data.signups.length, 0);
});
