// /app/api/settings and /app/api/members: the account's settings (sender defaults, tracking,
// verify_emails, timezone, postal address, the checks it blocks a send on) and its team (add, change a role, remove). Reading is for every member;
// changing needs 'manage'.
// The plan limit (subscriber_limit) is the operator's, so it is shown but not editable here.
import type { FastifyInstance } from 'fastify';
import * as accounts from '../../../domain/accounts/accounts.ts';
import * as users from '../../../domain/accounts/users.ts';
import { instanceBlocking } from '../../../domain/campaigns/checks.ts';
import { deleted, listed, jsonBody, ok, parse, pathId, wholeList } from '../../rest/envelope.ts';
import { pick } from '../../pick.ts';
import { signInMode } from '../signIn.ts';

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
  'postal_address',
  'blocking_checks',
  'created_at',
  'updated_at',
] as const;

export async function settingsRoutes(app: FastifyInstance) {
  // with the checks the instance blocks a send on (SEND_CHECKS): the floor the account's own list adds to
  const shown = (account: accounts.AccountWithOwner | Awaited<ReturnType<typeof accounts.update>>) => ({
    ...pick(account, SHOWN),
    instance_blocking_checks: instanceBlocking(app.config),
  });
  app.get('/settings', async (req) => ok(shown(await accounts.get(app.db, req.member.accountId))));

  app.patch('/settings', { config: { permission: 'manage' } }, async (req) => {
    const account = await accounts.update(app.db, req.member.accountId, parse(EDITABLE, req.body));
    return ok(shown(account), 'Settings saved');
  });

  app.get('/members', async (req) =>
    listed('members', wholeList(await users.listMembers(app.db, req.member.accountId))),
  );

  app.post('/members', { config: { permission: 'manage' } }, async (req, reply) => {
    const member = await users.addMember(app.db, req.member.accountId, jsonBody(req.body), signInMode(app));
    return reply.code(201).send(ok(member));
  });

  // PUT and PATCH alike: the body is the one thing a membership has to change
  for (const method of ['put', 'patch'] as const)
    app[method]('/members/:id', { config: { permission: 'manage' } }, async (req) => {
      const id = pathId(req.params, 'Member not found');
      const body = jsonBody(req.body);
      return ok(await users.changeRole(app.db, req.member.accountId, id, body, req.member.role));
    });

  app.delete('/members/:id', { config: { permission: 'manage' } }, async (req) => {
    const id = pathId(req.params, 'Member not found');
    await users.removeMember(app.db, req.member.accountId, id);
    return deleted(id, 'Member', 'removed');
  });
}
