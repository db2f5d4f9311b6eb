// /app/api/session/two-factor*, /sessions and /password-reset*: the second factor at sign-in (a code once,
// a recovery code once, tries limited), turning it off with password + code, a person's own sessions, and
// "Forgot password?" (the same answer whether the address exists, limited per address, a link once).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { startServer } from '../../../support/server.ts';
import { dashboardClient, mailedToken, signedIn } from '../session.ts';

const s = await startServer({ after });

const resetToken = (email: string, n = 1) => mailedToken(s, email, n);

describe('two-factor sign-in', () => {
  test('enrol, sign in with a code (not twice), a recovery code once, turn off with password + code', async () => {
    const m = await signedIn(s, 'editor', undefined, { withPassword: true });
    assert.equal((await m.client.get('/me')).body.data.two_factor, false);
    const setup = (await m.client.post('/session/two-factor/setup')).body.data;
    assert.match(setup.uri, /^otpauth:\/\/totp\//);
    assert.match(setup.qr, /^data:image\/svg\+xml;base64,/);
    const app = new TOTP({ secret: Secret.fromBase32(setup.secret) });
    assert.equal((await m.client.post('/session/two-factor/enable', { code: 'abc' })).status, 400);
    const on = await m.client.post('/session/two-factor/enable', { code: app.generate() });
    assert.equal(on.status, 200);
    const codes: string[] = on.body.data.recovery_codes;
    assert.equal(codes.length, 10);
    assert.equal((await m.client.post('/session/two-factor/setup')).status, 409, 'on already');

    const c = dashboardClient(s.url);
    const first = await c.post('/session', { email: m.email, password: m.password });
    assert.deepEqual(Object.keys(first.body.data).sort(), ['challenge', 'signed_in', 'two_factor_required']);
    assert.equal(c.jar.size, 0, 'no session before the code');
    const { challenge } = first.body.data;
    assert.equal((await c.post('/session/two-factor', { challenge: 'forged', code: '123456' })).status, 401);
    assert.equal((await c.post('/session/two-factor', { challenge, code: app.generate() })).status, 401, 'replayed');
    const next = app.generate({ timestamp: Date.now() + 30_000 });
    assert.equal((await c.post('/session/two-factor', { challenge, code: next })).status, 200);
    assert.equal((await c.get('/me')).status, 200);
    // the challenge is used up with the sign-in
    assert.equal((await c.post('/session/two-factor', { challenge, code: codes[0] })).status, 401);

    const again = dashboardClient(s.url);
    const step = (await again.post('/session', { email: m.email, password: m.password })).body.data;
    assert.equal((await again.post('/session/two-factor', { challenge: step.challenge, code: codes[0] })).status, 200);
    const third = dashboardClient(s.url);
    const step3 = (await third.post('/session', { email: m.email, password: m.password })).body.data;
    assert.equal((await third.post('/session/two-factor', { challenge: step3.challenge, code: codes[0] })).status, 401);
    assert.equal((await m.client.get('/session/two-factor')).body.data.recovery_codes_left, 9);

    const wrongPassword = await m.client.post('/session/two-factor/disable', { password: 'nope', code: codes[1] });
    assert.equal(wrongPassword.status, 400);
    assert.ok(wrongPassword.body.data.password);
    const off = await m.client.post('/session/two-factor/disable', { password: m.password, code: codes[1] });
    assert.equal(off.status, 200);
    assert.equal((await m.client.get('/me')).body.data.two_factor, false);
  });

  test('codes at sign-in are limited per user: ten a minute, twenty an hour (refused tries count)', async () => {
    const m = await signedIn(s, 'viewer', undefined, { withPassword: true });
    const setup = (await m.client.post('/session/two-factor/setup')).body.data;
    await m.client.post('/session/two-factor/enable', {
      code: new TOTP({ secret: Secret.fromBase32(setup.secret) }).generate(),
    });
    const c = dashboardClient(s.url);
    const { challenge } = (await c.post('/session', { email: m.email, password: m.password })).body.data;
    const answers: { status: number; retry?: number; error?: string }[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await c.post('/session/two-factor', { challenge, code: '000000' });
      answers.push({ status: res.status, retry: res.body.data?.retry_after, error: res.body.error });
    }
    assert.deepEqual(
      answers.slice(0, 10).map((a) => a.status),
      Array(10).fill(401),
    );
    for (const a of answers.slice(10, 20)) assert.ok(a.status === 429 && a.retry! <= 60, JSON.stringify(a));
    assert.equal(answers[20]!.status, 429);
    assert.ok(answers[20]!.retry! > 60, `the hour's budget is spent: ${answers[20]!.retry}`);
    assert.equal(answers[10]!.error, 'Too many codes tried: try again in a minute');
    assert.match(answers[20]!.error!, /^Too many codes tried: try again in (59|60) minutes$/);
    // the right code waits out the hour as well
    const right = new TOTP({ secret: Secret.fromBase32(setup.secret) }).generate();
    assert.equal((await c.post('/session/two-factor', { challenge, code: right })).status, 429);
  });
});

describe('sessions', () => {
  test('a person lists their sessions, signs one out, and signs out everywhere else', async () => {
    const m = await signedIn(s, 'editor', undefined, { withPassword: true });
    const phone = dashboardClient(s.url);
    const ua =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1';
    await phone.post('/session', { email: m.email, password: m.password }, { headers: { 'user-agent': ua } });
    const laptop = dashboardClient(s.url);
    await laptop.post('/session', { email: m.email, password: m.password });
    const list = (await m.client.get('/sessions')).body.data.sessions;
    assert.equal(list.length, 3);
    assert.equal(list.filter((x: any) => x.current).length, 1);
    const onPhone = list.find((x: any) => x.client === 'Safari on iOS');
    assert.ok(onPhone, JSON.stringify(list.map((x: any) => x.client)));
    assert.equal(onPhone.ip, '127.0.0.1');
    const stranger = await signedIn(s);
    assert.equal((await stranger.client.delete(`/sessions/${onPhone.id}`)).status, 404, "someone else's session");
    assert.equal((await m.client.delete(`/sessions/${onPhone.id}`)).status, 200);
    assert.equal((await phone.get('/me')).status, 401);
    assert.equal((await m.client.post('/sessions/sign-out-others')).body.data.ended, 1);
    assert.equal((await laptop.get('/me')).status, 401);
    assert.equal((await m.client.get('/me')).status, 200);
  });
});

describe('password reset', () => {
  test('the same answer for any address; the link sets a password once and ends every session', async () => {
    const m = await signedIn(s, 'editor', undefined, { withPassword: true });
    const c = dashboardClient(s.url);
    const unknown = await c.post('/password-reset', { email: 'nobody-here@example.com' });
    const known = await c.post('/password-reset', { email: m.email });
    assert.equal(unknown.status, 202);
    assert.deepEqual(unknown.body, known.body);
    assert.equal((await c.post('/password-reset', { email: 'not an address' })).status, 400);
    const token = await resetToken(m.email);
    assert.equal((await c.post('/password-reset/check', { token })).status, 200);
    assert.equal((await c.post('/password-reset/complete', { token, password: 'short' })).status, 400);
    assert.equal((await c.post('/password-reset/complete', { token, password: 'brand new password' })).status, 200);
    assert.equal((await m.client.get('/me')).status, 401, 'every session ended');
    assert.equal((await c.post('/password-reset/complete', { token, password: 'another new password' })).status, 404);
    assert.equal((await c.post('/session', { email: m.email, password: 'brand new password' })).status, 200);
    for (const body of [
      {},
      { token: 'nope' },
      { token: ['x'] },
      { token: 'x'.repeat(1000), password: 'long enough pw' },
    ])
      assert.ok([400, 404].includes((await c.post('/password-reset/complete', body)).status), JSON.stringify(body));
  });

  test('an expired link says so; requests are limited per address', async () => {
    const m = await signedIn(s, 'viewer', undefined, { withPassword: true });
    const c = dashboardClient(s.url);
    await c.post('/password-reset', { email: m.email });
    const token = await resetToken(m.email);
    await s.db
      .updateTable('password_resets')
      .set({ expires_at: new Date(Date.now() - 1) })
      .execute();
    const expired = await c.post('/password-reset/complete', { token, password: 'brand new password' });
    assert.equal(expired.status, 409);
    assert.match(expired.body.error, /expired/);
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await c.post('/password-reset', { email: m.email.toUpperCase() })).status);
    assert.deepEqual(statuses, [202, 202, 429]);
  });
});
