// /app/api for a person's own sign-in security: the second factor at sign-in (POST /session/two-factor),
// enrolling and turning off TOTP (/session/two-factor/*), their sessions (list, sign one out, sign out
// everywhere else), and "Forgot password?" (/password-reset/*, public). Every code tried counts against a
// limit per user; reset requests against one per address and one per client address.
import type { FastifyInstance, FastifyReply } from 'fastify';
import qrcode from 'qrcode-generator';
import { KeyRateLimiter, type LimitResult } from '../../../auth/rateLimit.ts';
import * as resets from '../../../domain/accounts/passwordResets.ts';
import * as sessions from '../../../domain/accounts/sessions.ts';
import * as totp from '../../../domain/accounts/totp.ts';
import { jsonBody, listed, ok, parse, pathId, wholeList } from '../../rest/envelope.ts';
import { signInMode, startSession } from '../signIn.ts';

/** The otpauth:// URI as a QR code in an SVG data URL, made here: no image service sees the secret. */
function qrDataUrl(uri: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(uri);
  qr.make();
  const svg = qr.createSvgTag({ cellSize: 4, margin: 4, scalable: true });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** 429, saying in words how long to wait: the sign-in form shows the message as it is */
function tooMany(reply: FastifyReply, limit: LimitResult, what: string) {
  const minutes = Math.ceil(limit.retryAfter / 60);
  const wait = limit.retryAfter <= 60 ? 'a minute' : `${minutes} minutes`;
  return reply
    .code(429)
    .header('Retry-After', limit.retryAfter)
    .send({ success: false, error: `Too many ${what}: try again in ${wait}`, data: { retry_after: limit.retryAfter } });
}

export async function securityRoutes(app: FastifyInstance) {
  // codes at sign-in, per user, after a right password: ten a minute and twenty an hour. A 6-digit code is
  // one of a million (three are valid at a time): at ten a minute a guesser with the password would be in
  // within weeks, at twenty an hour it takes decades, and a person who mistypes waits at most an hour.
  // Every try counts against the hour, refused ones too. Enrolling and turning off count apart
  const codeLimiter = new KeyRateLimiter('dashboard_second_factor', 10, app.limitStore);
  const codeHourLimiter = new KeyRateLimiter('dashboard_second_factor_hour', 20, app.limitStore, {
    windowSeconds: 3600,
  });
  const setupLimiter = new KeyRateLimiter('dashboard_second_factor_setup', 6, app.limitStore);
  const resetByAddress = new KeyRateLimiter('dashboard_reset_address', 3, app.limitStore);
  const resetByClient = new KeyRateLimiter('dashboard_reset_client', 10, app.limitStore);
  const mail = { transport: app.transport, config: app.config };
  const secret = () => app.config.secret;

  // ---- the second factor at sign-in ----

  app.post('/session/two-factor', { config: { public: true } }, async (req, reply) => {
    const { challenge, code } = parse(totp.ChallengeAnswer, req.body);
    const userId = await totp.challengeUser(app.db, challenge);
    if (!userId)
      return reply
        .code(401)
        .send({ success: false, error: 'The sign-in took too long: sign in with your password again' });
    const hour = await codeHourLimiter.consume(userId);
    if (!hour.allowed) return tooMany(reply, hour, 'codes tried');
    const limit = await codeLimiter.consume(userId);
    if (!limit.allowed) return tooMany(reply, limit, 'codes tried');
    if (!(await totp.verifyCode(app.db, secret(), userId, code)))
      return reply.code(401).send({ success: false, error: 'That code is not right, or was used already' });
    await totp.endChallenge(app.db, challenge);
    if (!(await startSession(app, req, reply, userId)))
      return reply.code(401).send({ success: false, error: 'Invalid email or password' });
    return ok({ signed_in: true });
  });

  // ---- enrolment ----

  app.get('/session/two-factor', async (req) => ok(await totp.status(app.db, req.member.userId)));

  app.post('/session/two-factor/setup', async (req) => {
    const enrolment = await totp.beginEnrolment(app.db, secret(), req.member.userId);
    return ok({ ...enrolment, qr: qrDataUrl(enrolment.uri) });
  });

  app.post('/session/two-factor/enable', async (req, reply) => {
    const limit = await setupLimiter.consume(req.member.userId);
    if (!limit.allowed) return tooMany(reply, limit, 'codes tried');
    return ok(
      await totp.confirmEnrolment(app.db, secret(), req.member.userId, jsonBody(req.body)),
      'Two-factor sign-in is on',
    );
  });

  app.post('/session/two-factor/disable', async (req, reply) => {
    const limit = await setupLimiter.consume(req.member.userId);
    if (!limit.allowed) return tooMany(reply, limit, 'codes tried');
    await totp.disable(app.db, secret(), req.member.userId, jsonBody(req.body));
    return ok({ enabled: false }, 'Two-factor sign-in is off');
  });

  // ---- sessions ----

  app.get('/sessions', async (req) =>
    listed('sessions', wholeList(await sessions.listOf(app.db, req.member.userId, req.member.sessionId))),
  );

  app.delete('/sessions/:id', async (req) => {
    const id = pathId(req.params, 'Session not found');
    if (id === req.member.sessionId) return ok({ id, signed_out: false }, 'Use "Sign out" for this session');
    await sessions.endOne(app.db, req.member.userId, id);
    return ok({ id, signed_out: true }, 'Session signed out');
  });

  app.post('/sessions/sign-out-others', async (req) => {
    const ended = await sessions.endOthers(app.db, req.member.userId, req.member.sessionId);
    return ok({ ended }, ended === 1 ? '1 other session signed out' : `${ended} other sessions signed out`);
  });

  // ---- "Forgot password?" ----

  // with an identity provider, passwords are the provider's business
  const noPasswords = (reply: FastifyReply) =>
    reply.code(409).send({ success: false, error: 'Passwords are managed by your identity provider' });

  app.post('/password-reset', { config: { public: true } }, async (req, reply) => {
    if (signInMode(app) === 'oidc') return noPasswords(reply);
    const email = resets.requestedAddress(jsonBody(req.body));
    for (const [limiter, key] of [
      [resetByClient, req.ip],
      [resetByAddress, email],
    ] as const) {
      const limit = await limiter.consume(key);
      if (!limit.allowed) return tooMany(reply, limit, 'reset requests');
    }
    // answered before anything is looked up or sent: the answer and its timing are the same for every address
    setImmediate(
      () => void resets.request(app.db, mail, email).catch((err) => app.log.error({ err }, 'password reset mail')),
    );
    return reply
      .code(202)
      .send(ok({ requested: true }, 'If that address can sign in here, a link to reset its password is on its way'));
  });

  app.post('/password-reset/check', { config: { public: true } }, async (req) =>
    ok(await resets.check(app.db, jsonBody(req.body))),
  );

  app.post('/password-reset/complete', { config: { public: true } }, async (req, reply) => {
    if (signInMode(app) === 'oidc') return noPasswords(reply);
    await resets.complete(app.db, jsonBody(req.body));
    return ok({ reset: true }, 'Password changed: sign in with the new one');
  });
}
