// /api/v1/external/sending-domains: our addition to the spec's REST surface. The account's sending domains
// (src/domain/sending/): add one (its DKIM key is made, the DNS records to publish answered), list, get,
// delete, and verify (live DNS lookups). They govern how campaigns are sent, hence the campaigns scopes.
import { z } from 'zod';
import * as sending from '../../domain/sending/domains.ts';
import { pageOfWhole, WholeListQuery } from '../../domain/paging.ts';
import { okOf, pageOf } from '../openapi/envelopes.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

const Purpose = z.enum(['dkim', 'spf', 'dmarc', 'return_path']);
const Check = z.object({
  purpose: Purpose,
  ok: z.boolean(),
  found: z.string().nullable().describe('What DNS answered, null when nothing'),
});
const SendingDomain = z.object({
  id: z.string().meta({ format: 'uuid' }),
  domain: z.string().describe('Lower-case ASCII; an internationalised name is stored as punycode'),
  status: z.enum(['pending', 'verified', 'failed']),
  selector: z.string().describe("The DKIM selector the product chose for this account's key"),
  dns_records: z.array(
    z.object({ type: z.enum(['TXT', 'CNAME']), name: z.string(), value: z.string(), purpose: Purpose }),
  ),
  checks: z.array(Check).describe('The outcome of the last check'),
  checked_at: z.string().nullable(),
  verified_at: z.string().nullable(),
  created_at: z.string(),
});
const Verification = z.object({
  id: z.string().meta({ format: 'uuid' }),
  domain: z.string(),
  status: z.enum(['pending', 'verified', 'failed']),
  checks: z.array(Check.extend({ message: z.string().optional().describe('Why the check failed') })),
});

export const sendingDomainRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/sending-domains',
      operationId: 'listSendingDomains',
      tag: 'Sending domains',
      summary: "The account's sending domains",
      scope: 'campaigns:read',
      spec: false,
      query: WholeListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('sending_domains', SendingDomain) },
      handler: async ({ app, req }) => {
        const page = pageOfWhole(await sending.list(app.db, app.config, req.key.accountId), req.query);
        return listed('sending_domains', page);
      },
    },
    {
      method: 'post',
      path: '/sending-domains',
      operationId: 'createSendingDomain',
      tag: 'Sending domains',
      summary: 'Add a sending domain',
      description:
        'Makes a 2048-bit RSA DKIM key for the account (the private key is stored encrypted and never returned) ' +
        'and answers the DNS records to publish: dkim, spf, dmarc and return_path.',
      scope: 'campaigns:write',
      spec: false,
      body: sending.NewDomain,
      success: { status: 201, description: 'Created, pending until verified', schema: okOf(SendingDomain) },
      errors: [conflict('The account has this domain already.')],
      handler: async ({ app, req, reply }) => {
        const created = await sending.add(app.db, app.config, req.key.accountId, jsonBody(req.body));
        return reply.code(201).send(ok(created));
      },
    },
    {
      method: 'get',
      path: '/sending-domains/{id}',
      operationId: 'getSendingDomain',
      tag: 'Sending domains',
      summary: 'Get a sending domain with its DNS records',
      scope: 'campaigns:read',
      spec: false,
      params: ID('sending domain'),
      success: { status: 200, description: 'The domain', schema: okOf(SendingDomain) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, sending.NOT_FOUND);
        return ok(await sending.get(app.db, app.config, req.key.accountId, id));
      },
    },
    {
      method: 'post',
      path: '/sending-domains/{id}/verify',
      operationId: 'verifySendingDomain',
      tag: 'Sending domains',
      summary: "Look the domain's DNS records up now",
      description: "verified once the DKIM record holds this account's key; each check says what DNS answered.",
      scope: 'campaigns:write',
      spec: false,
      params: ID('sending domain'),
      success: { status: 200, description: 'The outcome', schema: okOf(Verification) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, sending.NOT_FOUND);
        return ok(await sending.verify(app.db, app.config, req.key.accountId, id));
      },
    },
    deleteOperation({
      path: '/sending-domains/{id}',
      operationId: 'deleteSendingDomain',
      tag: 'Sending domains',
      summary: 'Remove a sending domain (its key is deleted; mail from it is no longer signed with it)',
      scope: 'campaigns:write',
      params: ID('sending domain'),
      thing: 'Sending domain',
      notFound: sending.NOT_FOUND,
      remove: sending.remove,
    }),
  ],
};
