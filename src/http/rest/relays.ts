// /api/v1/external/relays: our addition to the spec's REST surface. The account's SMTP relays
// (src/domain/sending/relays.ts): add one for some From domains, list, delete, and send a test through
// one. Like sending domains they govern how campaigns are sent, hence the campaigns scopes. The URL given
// (credentials included) is never answered: host, port, TLS mode and whether there are credentials are.
import { z } from 'zod';
import { pageOfWhole, WholeListQuery } from '../../domain/paging.ts';
import * as relays from '../../domain/sending/relays.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

const Relay = z.object({
  id: z.string().meta({ format: 'uuid' }),
  name: z.string(),
  host: z.string(),
  port: z.number().int(),
  secure: z.boolean().describe('Implicit TLS (smtps://); otherwise STARTTLS when the server offers it'),
  has_credentials: z.boolean().describe('Whether the URL carries a user name (the credentials are never returned)'),
  from_domains: z.array(z.string()).describe('Mail whose From domain is one of these leaves through this relay'),
  created_at: z.string(),
});
const TestOutcome = z.object({
  ok: z.boolean(),
  message: z.string().describe("The relay's reply, or the error (credentials blanked out)"),
});

export const relayRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/relays',
      operationId: 'listRelays',
      tag: 'Relays',
      summary: "The account's SMTP relays",
      scope: 'campaigns:read',
      spec: false,
      query: WholeListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('relays', Relay) },
      handler: async ({ app, req }) => {
        const page = pageOfWhole(await relays.list(app.db, req.key.accountId), req.query);
        return listed('relays', page);
      },
    },
    {
      method: 'post',
      path: '/relays',
      operationId: 'createRelay',
      tag: 'Relays',
      summary: 'Add an SMTP relay for some From domains',
      description:
        'url: smtp:// or smtps:// with credentials (stored encrypted, never returned). Mail whose From domain ' +
        'is one of from_domains leaves through this relay; the rest through the instance. The host must not be ' +
        'a private, loopback or link-local address.',
      scope: 'campaigns:write',
      spec: false,
      body: relays.NewRelay,
      success: { status: 201, description: 'Created', schema: okOf(Relay) },
      errors: [conflict('A relay of that name, or one for one of these domains, exists already.')],
      handler: async ({ app, req, reply }) => {
        const created = await relays.add(app.db, app.config, req.key.accountId, jsonBody(req.body));
        return reply.code(201).send(ok(created));
      },
    },
    {
      method: 'post',
      path: '/relays/{id}/test',
      operationId: 'testRelay',
      tag: 'Relays',
      summary: 'Send a short test message through the relay',
      scope: 'campaigns:write',
      spec: false,
      params: ID('relay'),
      body: relays.TestInput,
      success: { status: 200, description: 'What the relay answered', schema: okOf(TestOutcome) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, relays.NOT_FOUND);
        return ok(await relays.sendTest(app.db, app.config, app.transport, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/relays/{id}',
      operationId: 'deleteRelay',
      tag: 'Relays',
      summary: "Remove an SMTP relay (its domains' mail goes through the instance again)",
      scope: 'campaigns:write',
      params: ID('relay'),
      thing: 'Relay',
      notFound: relays.NOT_FOUND,
      remove: (db, accountId, id, app) => relays.remove(db, app.transport, accountId, id),
    }),
  ],
};
