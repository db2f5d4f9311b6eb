// The public form routes: the hosted page, submissions (form-encoded and JSON, CORS),
// the honeypot, the per-IP rate limit, and double opt-in end to end through the outbox: a confirmation
// mail with a signed 7-day link that creates or reactivates the subscriber and joins the form's groups.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { forgetSubscriber } from '../../../src/domain/forget/forget.ts';
import { signToken } from '../../../src/domain/forms/signups.ts';
import { client, startServer } from '../../support/server.ts';

// TRUST_PROXY: the rate-limit test plays several client IPs through X-Forwarded-For, as a proxy would
const s = await startServer({ after }, { TRUST_PROXY: true });
s.config.publicUrl = s.url; // PORT 0: the real port is known only now, and confirmation links must reach it

const account = (opts: { limit?: number } = {}) => s.restAccount({ limit: opts.limit });
type Account = Awaited<ReturnType<typeof account>>;

async function form(a: Account, body: Record<string, unknown>) {
  const res = await a.api.post('/forms', { name: 'Newsletter', ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

const post = (id: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${s.url}/f/${id}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
    body: new URLSearchParams(body),
  });
const postJson = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  client(s.url).post(`/f/${id}`, body, { accept: 'application/json', ...headers });

const subscriber = (accountId: string, email: string) =>
  s.db
    .selectFrom('subscribers')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirst();
const stats = async (id: string) =>
  await s.db
    .selectFrom('forms')
    .select(['views', 'submissions', 'confirmations'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const mailsTo = (to: string) =>
  s.db.selectFrom('outbox').selectAll().where('to_addr', '=', to).orderBy('created_at').execute();
const linkIn = (text: string | null) => /(http:\/\/[^\s"]+\/f\/confirm\/[A-Za-z0-9_\-.]+)/.exec(text ?? '')?.[1];

describe('GET /f/{id} hosted page', () => {
  test('accessible HTML: labelled inputs, escaped form name, hidden honeypot, only our own script; counts a view', async () => {
    const a = await account();
    await a.api.post('/fields', { key: 'vip', name: 'VIP', type: 'boolean' });
    const f = await form(a, {
      name: '<script>alert(1)</script> News',
      fields: [{ key: 'first_name', label: 'Your "name"' }, { key: 'vip' }],
    });
    const res = await fetch(`${s.url}/f/${f.id}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
    const html = await res.text();
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.ok(html.includes('<h1>&lt;script&gt;alert(1)&lt;/script&gt; News</h1>'));
    assert.ok(html.includes('<html lang="en">'));
    assert.match(
      html,
      /<label for="mg-email">Email <span aria-hidden="true">\*<\/span><\/label><input type="email" id="mg-email" name="email" required/,
    );
    assert.ok(html.includes('<label for="mg-first_name">Your &quot;name&quot;</label>'));
    assert.match(html, /<input type="checkbox" id="mg-vip" name="vip"/);
    assert.match(
      html,
      /aria-hidden="true"[^>]*><label for="mg-_website">Leave this field empty<\/label><input type="text" id="mg-_website" name="_website" tabindex="-1"/,
    );
    // one script, ours, from this origin (it fills the time-zone field); nothing inline may run
    assert.match(res.headers.get('content-security-policy')!, /script-src 'self';/);
    assert.doesNotMatch(
      res.headers.get('content-security-policy')!,
      /unsafe-inline'[^;]*;[^;]*script|script-src[^;]*unsafe/,
    );
    assert.deepEqual(html.match(/<script[^>]*>/g), ['<script src="/f/assets/form.js">']);
    assert.ok(!/<link|src="http/.test(html), 'no external assets');
    assert.deepEqual(await stats(f.id), { views: 1, submissions: 0, confirmations: 0 });
  });

  test('an inactive, missing or malformed form → 404 page', async () => {
    const a = await account();
    const f = await form(a, { active: false });
    for (const id of [f.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await fetch(`${s.url}/f/${id}`);
      assert.equal(res.status, 404);
      assert.match(await res.text(), /This form does not exist or is no longer accepting signups/);
    }
    assert.equal((await post(f.id, { email: 'a@example.com' })).status, 404);
    assert.equal((await stats(f.id)).views, 0);
  });
});

describe('POST /f/{id} without double opt-in', () => {
  test('form-encoded: subscribes (source form), joins the groups, records form.submitted, shows the success message', async () => {
    const a = await account();
    const g = (await a.api.post('/groups', { name: 'Readers' })).body.data;
    await a.api.post('/fields', { key: 'age', type: 'number' });
    const f = await form(a, {
      group_ids: [g.id],
      fields: [{ key: 'first_name' }, { key: 'age' }],
      success_message: 'Welcome <aboard>!',
    });
    const res = await post(f.id, { email: ' Ada@Example.com ', first_name: 'Ada', age: '36', unknown: 'ignored' });
    assert.equal(res.status, 200);
    assert.ok((await res.text()).includes('Welcome &lt;aboard&gt;!'));
    const sub = (await subscriber(a.accountId, 'Ada@Example.com'))!;
    assert.equal(sub.source, 'form');
    assert.equal(sub.status, 'active');
    assert.equal(sub.first_name, 'Ada');
    assert.deepEqual(sub.custom_fields, { age: 36 });
    assert.ok(
      await s.db
        .selectFrom('subscriber_groups')
        .select('group_id')
        .where('subscriber_id', '=', sub.id)
        .where('group_id', '=', g.id)
        .executeTakeFirst(),
    );
    const ev = await s.db
      .selectFrom('events')
      .select(['data', 'subscriber_id'])
      .where('account_id', '=', a.accountId)
      .where('type', '=', 'form.submitted')
      .executeTakeFirstOrThrow();
    assert.deepEqual(ev, {
      data: { form: { id: f.id, name: 'Newsletter' }, subscriber: { id: sub.id, email: 'Ada@Example.com' } },
      subscriber_id: sub.id,
    });
    assert.deepEqual(await stats(f.id), { views: 0, submissions: 1, confirmations: 0 });
    assert.equal((await a.api.get(`/forms/${f.id}/subscribers`)).body.data.subscribers[0].id, sub.id);
  });

  test('redirect_url → 303 to it; JSON callers get {success, message, redirect_url}', async () => {
    const a = await account();
    const f = await form(a, { redirect_url: 'https://example.com/thanks' });
    const res = await post(f.id, { email: 'a@example.com' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), 'https://example.com/thanks');
    const json = await postJson(f.id, { email: 'b@example.com' });
    assert.deepEqual(json.body, {
      success: true,
      message: 'Thank you for subscribing!',
      confirmation_required: false,
      redirect_url: 'https://example.com/thanks',
    });
  });

  test('CORS for embeds: OPTIONS preflight 204 and Access-Control-Allow-Origin * on POST', async () => {
    const a = await account();
    const f = await form(a, {});
    const pre = await fetch(`${s.url}/f/${f.id}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://site.example', 'access-control-request-method': 'POST' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), '*');
    assert.match(pre.headers.get('access-control-allow-methods')!, /POST/);
    const res = await postJson(f.id, { email: 'c@example.com' }, { origin: 'https://site.example' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
  });

  test('validation: 400 re-renders the form with the errors and the typed (escaped) values; JSON gets the field map', async () => {
    const a = await account();
    await a.api.post('/fields', { key: 'age', type: 'number' });
    const f = await form(a, { fields: [{ key: 'first_name', required: true }, { key: 'age' }] });
    const res = await post(f.id, { email: 'not-an-email', first_name: '', age: '"><b>x' });
    assert.equal(res.status, 400);
    const html = await res.text();
    assert.match(html, /role="alert"/);
    assert.match(html, /aria-invalid="true" aria-describedby="mg-email-error"[^>]*value="not-an-email"/);
    assert.ok(html.includes('<p class="mg-error" id="mg-email-error">A valid email address is required</p>'));
    assert.ok(html.includes('<p class="mg-error" id="mg-first_name-error">This field is required</p>'));
    assert.ok(html.includes('<p class="mg-error" id="mg-age-error">Must be a number</p>'));
    assert.ok(html.includes('value="&quot;&gt;&lt;b&gt;x"'));
    const json = await postJson(f.id, { first_name: 'Ada' });
    assert.equal(json.status, 400);
    assert.deepEqual(json.body, {
      success: false,
      error: 'email: This field is required',
      data: { email: ['This field is required'] },
    });
    assert.equal(
      (await s.db.selectFrom('subscribers').select('id').where('account_id', '=', a.accountId).execute()).length,
      0,
    );
    assert.equal((await stats(f.id)).submissions, 0);
  });

  test('an existing unsubscribed address stays unsubscribed (no confirmation) but gets the groups', async () => {
    const a = await account();
    const g = (await a.api.post('/groups', { name: 'G' })).body.data;
    const sub = (await a.api.post('/subscribers', { email: 'u@example.com' })).body.data;
    await a.api.put(`/subscribers/${sub.id}`, { status: 'unsubscribed' });
    const f = await form(a, { group_ids: [g.id] });
    assert.equal((await post(f.id, { email: 'U@example.com' })).status, 200);
    const after = (await a.api.get(`/subscribers/${sub.id}`)).body.data;
    assert.equal(after.status, 'unsubscribed');
    assert.deepEqual(
      after.groups.map((x: any) => x.id),
      [g.id],
    );
  });

  test('a custom field deleted after the form was saved drops out of the page and of required checks', async () => {
    const a = await account();
    const field = (await a.api.post('/fields', { key: 'company', type: 'text' })).body.data;
    const f = await form(a, { fields: [{ key: 'company', required: true }] });
    assert.match(await (await fetch(`${s.url}/f/${f.id}`)).text(), /name="company"/);
    await a.api.delete(`/fields/${field.id}`);
    assert.doesNotMatch(await (await fetch(`${s.url}/f/${f.id}`)).text(), /name="company"/);
    const res = await postJson(f.id, { email: 'co@example.com', company: 'Acme' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual((await subscriber(a.accountId, 'co@example.com'))!.custom_fields, {});
  });

  test('plan limit reached → 403 page, nothing stored', async () => {
    const a = await account({ limit: 1 });
    await a.api.post('/subscribers', { email: 'first@example.com' });
    const f = await form(a, {});
    const res = await post(f.id, { email: 'second@example.com' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /cannot accept new signups/);
    assert.equal(await subscriber(a.accountId, 'second@example.com'), undefined);
  });
});

describe('POST /f/{id} abuse guards', () => {
  test('honeypot filled → the normal success answer, but nothing stored and nothing counted', async () => {
    const a = await account();
    const f = await form(a, {});
    const res = await post(f.id, { email: 'bot@example.com', _website: 'http://spam.example' });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Thank you for subscribing!/);
    assert.equal(await subscriber(a.accountId, 'bot@example.com'), undefined);
    assert.deepEqual(await stats(f.id), { views: 0, submissions: 0, confirmations: 0 });
  });

  test('rate limit: the 11th submission in a minute from one IP to one form → 429 with Retry-After; another IP or form is unaffected', async () => {
    const a = await account();
    const f = await form(a, {});
    const other = await form(a, { name: 'Other' });
    const ip = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 10; i++) assert.equal((await postJson(f.id, { email: `r${i}@example.com` }, ip)).status, 200);
    const limited = await postJson(f.id, { email: 'r10@example.com' }, ip);
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error, 'Too many requests');
    assert.ok(limited.body.retry_after >= 1 && limited.body.retry_after <= 60);
    assert.equal(limited.headers.get('retry-after'), String(limited.body.retry_after));
    assert.equal(await subscriber(a.accountId, 'r10@example.com'), undefined);
    assert.equal((await post(f.id, { email: 'r11@example.com' }, ip)).status, 429);
    assert.equal(
      (await postJson(f.id, { email: 'r12@example.com' }, { 'x-forwarded-for': '203.0.113.8' })).status,
      200,
    );
    assert.equal((await postJson(other.id, { email: 'r13@example.com' }, ip)).status, 200);
  });
});

describe('Double opt-in', () => {
  test('submit → pending signup (not a subscriber) + confirmation mail; the link creates the subscriber in the groups, once', async () => {
    const a = await account();
    await s.db
      .updateTable('accounts')
      .set({
        default_from_name: 'Acme News',
        default_from_email: 'news@acme.example',
        default_reply_to: 'hello@acme.example',
      })
      .where('id', '=', a.accountId)
      .execute();
    const g = (await a.api.post('/groups', { name: 'Confirmed' })).body.data;
    const f = await form(a, {
      double_opt_in: true,
      group_ids: [g.id],
      fields: [{ key: 'first_name' }],
      success_message: 'You are in!',
    });
    const res = await post(f.id, { email: 'dora@example.com', first_name: 'Dora' });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Almost done: we have sent you an email/);
    assert.equal(await subscriber(a.accountId, 'dora@example.com'), undefined, 'not a subscriber before confirming');
    const pending = await s.db.selectFrom('pending_signups').selectAll().where('form_id', '=', f.id).execute();
    assert.equal(pending.length, 1);
    assert.deepEqual(pending[0]!.data, { first_name: 'Dora' });
    const [mail, ...more] = await mailsTo('dora@example.com');
    assert.equal(more.length, 0);
    assert.equal(mail!.from_addr, 'Acme News <news@acme.example>');
    assert.equal(mail!.subject, 'Please confirm your subscription');
    const { 'List-Id': listId, 'Feedback-ID': feedbackId, ...rest } = mail!.headers as Record<string, string>;
    assert.deepEqual(rest, { 'Reply-To': 'hello@acme.example' });
    // like every mail of the account: its list, and the feedback loop's id naming the form and the kind
    assert.match(listId!, /^<[0-9a-f-]{36}\.127\.0\.0\.1>$/);
    assert.match(feedbackId!, new RegExp(`^${f.id}:[0-9a-f-]{36}:confirmation:`));
    const link = linkIn(mail!.text)!;
    assert.ok(link.startsWith(`${s.url}/f/confirm/`), link);
    assert.ok(mail!.html!.includes(link));
    assert.deepEqual(await stats(f.id), { views: 0, submissions: 1, confirmations: 0 });

    const confirmed = await fetch(link);
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /You are in!/);
    const sub = (await subscriber(a.accountId, 'dora@example.com'))!;
    assert.equal(sub.status, 'active');
    assert.equal(sub.first_name, 'Dora');
    assert.equal(sub.source, 'form');
    assert.ok(
      await s.db
        .selectFrom('subscriber_groups')
        .select('group_id')
        .where('subscriber_id', '=', sub.id)
        .where('group_id', '=', g.id)
        .executeTakeFirst(),
    );
    const ev = await s.db
      .selectFrom('events')
      .select('data')
      .where('account_id', '=', a.accountId)
      .where('type', '=', 'form.submitted')
      .execute();
    assert.deepEqual(
      ev.map((e) => e.data),
      [
        {
          form: { id: f.id, name: 'Newsletter' },
          subscriber: { id: sub.id, email: 'dora@example.com' },
          confirmed: true,
        },
      ],
    );
    // a second click shows success again but counts nothing twice
    assert.equal((await fetch(link)).status, 200);
    assert.deepEqual(await stats(f.id), { views: 0, submissions: 1, confirmations: 1 });
    assert.equal((await a.api.get(`/forms/${f.id}/subscribers`)).body.data.pagination.total_count, 1);
  });

  test('a resubmission within 10 minutes refreshes the pending signup but sends no second mail; JSON says confirmation_required', async () => {
    const a = await account();
    const f = await form(a, { double_opt_in: true, fields: [{ key: 'first_name' }] });
    const first = await postJson(f.id, { email: 'eve@example.com', first_name: 'Eve' });
    assert.deepEqual(first.body, {
      success: true,
      message: 'Almost done: we have sent you an email. Please open the link in it to confirm your subscription.',
      confirmation_required: true,
    });
    await postJson(f.id, { email: 'EVE@example.com', first_name: 'Evelyn' });
    assert.equal((await mailsTo('eve@example.com')).length, 1);
    const pending = await s.db
      .selectFrom('pending_signups')
      .select(['email', 'data'])
      .where('form_id', '=', f.id)
      .execute();
    assert.deepEqual(pending, [{ email: 'EVE@example.com', data: { first_name: 'Evelyn' } }]);
  });

  test('confirming reactivates an unsubscribed subscriber and redirects to redirect_url', async () => {
    const a = await account();
    const sub = (await a.api.post('/subscribers', { email: 'back@example.com' })).body.data;
    await a.api.put(`/subscribers/${sub.id}`, { status: 'unsubscribed' });
    const f = await form(a, { double_opt_in: true, redirect_url: 'https://example.com/welcome' });
    await post(f.id, { email: 'back@example.com' });
    const res = await fetch(linkIn((await mailsTo('back@example.com'))[0]!.text)!, { redirect: 'manual' });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get('location'), 'https://example.com/welcome');
    assert.equal((await a.api.get(`/subscribers/${sub.id}`)).body.data.status, 'active');
  });

  test('a tampered or expired link → 400 page that says so; nothing is created', async () => {
    const a = await account();
    const f = await form(a, { double_opt_in: true });
    await post(f.id, { email: 'tim@example.com' });
    const link = linkIn((await mailsTo('tim@example.com'))[0]!.text)!;
    const token = link.split('/f/confirm/')[1]!;
    const tampered = await fetch(`${s.url}/f/confirm/${token.slice(0, -2)}xx`);
    assert.equal(tampered.status, 400);
    assert.match(await tampered.text(), /This confirmation link is not valid/);
    const id = (
      await s.db.selectFrom('pending_signups').select('id').where('form_id', '=', f.id).executeTakeFirstOrThrow()
    ).id;
    const expired = await fetch(`${s.url}/f/confirm/${signToken(s.config.secret, id, new Date(Date.now() - 1000))}`);
    assert.equal(expired.status, 400);
    assert.match(await expired.text(), /has expired/);
    assert.equal(
      (await fetch(`${s.url}/f/confirm/${signToken('another-secret', id, new Date(Date.now() + 60_000))}`)).status,
      400,
    );
    assert.equal(await subscriber(a.accountId, 'tim@example.com'), undefined);
  });

  test('forget_subscriber erases the address from pending signups; deleting a form drops its pending signups', async () => {
    const a = await account();
    const plain = await form(a, { name: 'Plain' });
    const doi = await form(a, { name: 'DOI', double_opt_in: true });
    await post(plain.id, { email: 'gone@example.com' });
    await post(doi.id, { email: 'GONE@example.com' });
    const sub = (await subscriber(a.accountId, 'gone@example.com'))!;
    assert.equal(
      (await s.db.selectFrom('pending_signups').select('id').where('account_id', '=', a.accountId).execute()).length,
      1,
    );
    await forgetSubscriber(s.db, s.config.secret, a.accountId, sub.id);
    assert.equal(
      (await s.db.selectFrom('pending_signups').select('id').where('account_id', '=', a.accountId).execute()).length,
      0,
    );
    assert.equal(
      (await s.db.selectFrom('form_signups').select('form_id').where('account_id', '=', a.accountId).execute()).length,
      0,
    );
    await post(doi.id, { email: 'other@example.com' });
    await a.api.delete(`/forms/${doi.id}`);
    assert.equal(
      (await s.db.selectFrom('pending_signups').select('id').where('account_id', '=', a.accountId).execute()).length,
      0,
    );
  });
});
