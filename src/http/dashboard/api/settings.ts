// /app/api/settings and /app/api/members: the account's settings (sender defaults, tracking,
// verify_emails, timezone) and its team (add, change a role, remove). Reading is for every member;
// changing needs 'manage'.
// The plan limit (subscriber_limit) is the operator's, so it is shown but not editable here.
import type { FastifyInstance } from 'fastify';
import * as accounts from '../../../domain/accounts/accounts.ts';
import * as users from '../../../domain/accounts/users.ts';
import { ok, parse, pathId } from '../../rest/envelope.ts';
import { pick } from '../../pick.ts';

const EDITABLE = accounts.AccountSettings.omit({ subscriber_limit: true });
const SHOWN = [
  'id',
  'name',
  'subscriber_limit',
  'default_from_name',
  'default_from_email',
  'default_reply_to',
  'tracking_enabled',
  'verify_emails',
  'timezone',
  'created_at',
  'updated_at',
] as const;

export async function settingsRoutes(app: FastifyInstance) {
  app.get('/settings', async (req) => ok(pick(await accounts.get(app.db, req.member.accountId), SHOWN)));

  app.patch('/settings', { config: { permission: 'manage' } }, async (req) => {
    const account = await accounts.update(app.db, req.member.accountId, parse(EDITABLE, req.body));
    return ok(pick(account, SHOWN), 'Settings saved');
  });

  app.get('/members', async (req) => ok(await users.listMembers(app.db, req.member.accountId)));

  app.post('/members', { config: { permission: 'manage' } }, async (req, reply) => {
    const member = await users.addMember(app.db, req.member.accountId, parse(users.NewMember, req.body));
    return reply.code(201).send(ok(member));
  });

  // PUT and PATCH alike: the body is the one thing a membership has to change
  for (const method of ['put', 'patch'] as const)
    app[method]('/members/:id', { config: { permission: 'manage' } }, async (req) => {
      const id = pathId(req.params, 'Member not found');
      const body = parse(users.RoleChange, req.body);
      return ok(await users.changeRole(app.db, req.member.accountId, id, body, req.member.role));
    });

  app.delete('/members/:id', { config: { permission: 'manage' } }, async (req) => {
    await users.removeMember(app.db, req.member.accountId, pathId(req.params, 'Member not found'));
    return ok({ removed: true });
  });
}
