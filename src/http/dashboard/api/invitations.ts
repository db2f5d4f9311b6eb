// /app/api/invitations: an owner or admin invites people by email, sees the invitations not accepted
// yet, sends one again (a new link) or revokes it. /app/api/invitation/preview and /accept are public:
// the invitation's link (its token in the page's fragment, posted in the body, never in a URL) is what
// lets the person in.
import type { FastifyInstance } from 'fastify';
import { KeyRateLimiter } from '../../../auth/rateLimit.ts';
import type { SessionContext } from '../../../domain/accounts/sessions.ts';
import * as invitations from '../../../domain/accounts/invitations.ts';
import { deleted, jsonBody, listed, ok, pathId, wholeList } from '../../rest/envelope.ts';
import { afterPassword, signInMode } from '../signIn.ts';

export async function invitationRoutes(app: FastifyInstance) {
  const mail = { transport: app.transport, config: app.config };
  // accepting checks the password of an address that has one: as many tries as signing in, per client
  const acceptLimiter = new KeyRateLimiter('dashboard_invitation_accept', 10, app.limitStore);
  const passwordsOnly = () =>
    signInMode(app) === 'oidc'
      ? { success: false, error: 'Members sign in with your identity provider: add them by email instead' }
      : undefined;
  const inviter = (m: SessionContext) => ({
    accountId: m.accountId,
    accountName: m.accountName,
    userId: m.userId,
    who: m.name ? `${m.name} (${m.email})` : m.email,
  });

  app.get('/invitations', { config: { permission: 'manage' } }, async (req) =>
    listed('invitations', wholeList(await invitations.list(app.db, req.member.accountId))),
  );

  app.post('/invitations', { config: { permission: 'manage' } }, async (req, reply) => {
    const off = passwordsOnly();
    if (off) return reply.code(409).send(off);
    const invitation = await invitations.invite(app.db, mail, inviter(req.member), jsonBody(req.body));
    return reply
      .code(201)
      .send(ok(invitation, invitation.sent ? 'Invitation sent' : 'Invitation saved; the mail could not be sent'));
  });

  app.post('/invitations/:id/resend', { config: { permission: 'manage' } }, async (req) => {
    const id = pathId(req.params, 'Invitation not found');
    const invitation = await invitations.resend(app.db, mail, inviter(req.member), id);
    return ok(invitation, invitation.sent ? 'Invitation sent again' : 'The mail could not be sent');
  });

  app.delete('/invitations/:id', { config: { permission: 'manage' } }, async (req) => {
    const id = pathId(req.params, 'Invitation not found');
    await invitations.revoke(app.db, req.member.accountId, id);
    return deleted(id, 'Invitation', 'revoked');
  });

  app.post('/invitation/preview', { config: { public: true } }, async (req) =>
    ok(await invitations.preview(app.db, jsonBody(req.body))),
  );

  app.post('/invitation/accept', { config: { public: true } }, async (req, reply) => {
    const off = passwordsOnly();
    if (off) return reply.code(409).send(off);
    const limit = await acceptLimiter.consume(req.ip);
    if (!limit.allowed)
      return reply
        .code(429)
        .header('Retry-After', limit.retryAfter)
        .send({ success: false, error: 'Too many attempts', data: { retry_after: limit.retryAfter } });
    const { user, accountId } = await invitations.accept(app.db, jsonBody(req.body));
    const step = await afterPassword(app, req, reply, user.id, accountId);
    return ok({ ...step, account_id: accountId }, 'Welcome');
  });
}
