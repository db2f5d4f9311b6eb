// /api/v1/external/account: our addition to the spec's REST surface. The key's own account: its name,
// sender defaults, time zone, postal address, tracking default and the checks it blocks a send on
// (src/domain/accounts/profile.ts). Scopes account:read / account:write.
import * as profile from '../../domain/accounts/profile.ts';
import { okOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { jsonBody, ok } from './envelope.ts';
import { type Resource } from './operation.ts';

export const accountRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/account',
      operationId: 'getAccount',
      tag: 'Account',
      summary: "The key's account: name, sender defaults, time zone, postal address",
      scope: 'account:read',
      spec: false,
      success: { status: 200, description: 'The account', schema: okOf(r.Account) },
      handler: async ({ app, req }) => ok(await profile.get(app.db, req.key.accountId)),
    },
    {
      method: 'put',
      path: '/account',
      operationId: 'updateAccount',
      tag: 'Account',
      summary: 'Change the account: only the fields given change',
      description:
        'The postal address is shown in the footer of every email and by `{{ account.postal_address }}`; a campaign ' +
        'is not sent without one where the checks before a send block. `blocking_checks` names checks that ' +
        'refuse a send for this account beyond the instance’s (`SEND_CHECKS`). `bounce_imap_url` sets the ' +
        'account’s own bounce mailbox (`imaps://user:password@host/INBOX`, polled for late bounces and complaints; ' +
        'write-only, `null` removes it); `bounce_mailbox` shows where it points and how its last poll went.',
      scope: 'account:write',
      spec: false,
      body: profile.ProfileUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Account) },
      handler: async ({ app, req }) =>
        ok(await profile.update(app.db, app.config, req.key.accountId, jsonBody(req.body))),
    },
  ],
};
