// /admin/v1: operator API, behind MAILGROVE_ADMIN_TOKEN; off (404) when the token is unset.
// Same envelope as REST, and the same shapes for our own answers: a list is {<things>, pagination}, a
// delete {id, deleted: true} with a message. The CLI talks to a running server through these routes.
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import * as accounts from '../../domain/accounts/accounts.ts';
import * as apiKeys from '../../domain/accounts/apiKeys.ts';
import * as totp from '../../domain/accounts/totp.ts';
import * as users from '../../domain/accounts/users.ts';
import * as inbound from '../../domain/feedback/inbound.ts';
import { pageOfWhole } from '../../domain/paging.ts';
import { acceptJsonOnly, deleted, jsonBody, listed, ok, pathId } from '../rest/envelope.ts';
import { restError } from '../rest/errors.ts';

function sameSecret(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

export async function adminApi(app: FastifyInstance) {
  const token = app.config.MAILGROVE_ADMIN_TOKEN;
  app.setErrorHandler(restError);
  acceptJsonOnly(app);
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ success: false, error: 'Not found' }));
  app.addHook('onRequest', async (req, reply) => {
    if (!token)
      return reply.code(404).send({
        success: false,
        error: 'Not found',
        message: 'The admin API is disabled (MAILGROVE_ADMIN_TOKEN is not set)',
      });
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m || !sameSecret(m[1]!, token)) return reply.code(401).send({ success: false, error: 'Unauthorized' });
  });

  app.get('/accounts', async (req) => {
    const page = pageOfWhole(await accounts.list(app.db), req.query);
    return listed('accounts', page);
  });
  app.post('/accounts', async (req, reply) => {
    const account = await accounts.create(app.db, jsonBody(req.body), app.config.DEFAULT_SUBSCRIBER_LIMIT);
    return reply.code(201).send(ok(account));
  });
  app.get('/accounts/:id', async (req) => ok(await accounts.get(app.db, pathId(req.params, 'Account not found'))));
  app.patch('/accounts/:id', async (req) => {
    const id = pathId(req.params, 'Account not found');
    return ok(await accounts.update(app.db, id, jsonBody(req.body)));
  });
  app.get('/accounts/:id/api-keys', async (req) => {
    const id = pathId(req.params, 'Account not found');
    await accounts.get(app.db, id);
    const page = pageOfWhole(await apiKeys.list(app.db, id), req.query);
    return listed('api_keys', page);
  });
  app.post('/accounts/:id/api-keys', async (req, reply) => {
    const id = pathId(req.params, 'Account not found');
    await accounts.get(app.db, id);
    const key = await apiKeys.create(app.db, id, jsonBody(req.body));
    return reply.code(201).send(ok(key, 'Store this key now: it cannot be shown again'));
  });
  app.delete('/api-keys/:id', async (req) => {
    const id = pathId(req.params, 'API key not found');
    await apiKeys.revoke(app.db, null, id);
    return deleted(id, 'API key');
  });
  // mail that came to the inbound listener or the bounce mailbox and could not be attributed to an email
  app.get('/inbound/unmatched', async (req) => listed('unmatched', await inbound.listUnmatched(app.db, req.query)));
  app.get('/inbound/unmatched/:id/message', async (req, reply) => {
    const raw = await inbound.unmatchedMessage(app.db, pathId(req.params, 'Message not found'));
    // as it arrived (at most its first 256 KB), to read: never rendered as HTML
    return reply.type('text/plain; charset=utf-8').header('content-disposition', 'attachment').send(raw);
  });
  // operator password reset: how an owner created here (no password yet) first signs in to the dashboard
  app.post('/users/password', async (req) => ok(await users.resetPassword(app.db, jsonBody(req.body)), 'Password set'));
  // for a person who lost both the authenticator and the recovery codes: the password alone signs in again
  app.post('/users/two-factor/reset', async (req) =>
    ok(await totp.resetByOperator(app.db, jsonBody(req.body)), 'Two-factor sign-in turned off'),
  );
}
