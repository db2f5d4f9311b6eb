// /api/v1/external/campaigns and /outbox: our addition to the spec's REST surface (the spec shows
// campaigns only as tools). Same rules as the MCP campaign tools: both call src/domain/campaigns.ts.
// Scopes campaigns:read / campaigns:write.
import { Readable } from 'node:stream';
import { z } from 'zod';
import * as campaigns from '../../domain/campaigns/campaigns.ts';
import * as abTests from '../../domain/campaigns/abTests.ts';
import * as sendChecks from '../../domain/campaigns/checks.ts';
import * as drafts from '../../domain/campaigns/drafts.ts';
import * as evidence from '../../domain/campaigns/evidence.ts';
import * as outbox from '../../domain/campaigns/outbox.ts';
import * as reports from '../../domain/campaigns/reports.ts';
import * as resends from '../../domain/campaigns/resends.ts';
import * as retries from '../../domain/delivery/retry.ts';
import * as campaignStats from '../../domain/campaigns/stats.ts';
import * as warmup from '../../domain/campaigns/warmup.ts';
import { PageQuery, pageOfWhole, WholeListQuery } from '../../domain/paging.ts';
import { ChecksFailed, ErrorEnvelope, okOf, pageOf } from '../openapi/envelopes.ts';
import * as r from '../openapi/responses.ts';
import { pathParam } from '../params.ts';
import { jsonBody, listed, ok, pathId } from './envelope.ts';
import { conflict, deleteOperation, ID, type Resource } from './operation.ts';

const NOT_FOUND = campaigns.NOT_FOUND;

export const campaignRoutes: Resource = {
  operations: [
    {
      method: 'get',
      path: '/campaigns',
      operationId: 'listCampaigns',
      tag: 'Campaigns',
      summary: 'List campaigns',
      scope: 'campaigns:read',
      spec: false,
      query: campaigns.ListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('campaigns', r.Campaign) },
      handler: async ({ app, req }) => {
        const page = await campaigns.list(app.db, req.key.accountId, req.query);
        return listed('campaigns', page);
      },
    },
    {
      method: 'post',
      path: '/campaigns',
      operationId: 'createCampaign',
      tag: 'Campaigns',
      summary: 'Create a draft campaign',
      scope: 'campaigns:write',
      spec: false,
      body: campaigns.NewCampaign,
      success: { status: 201, description: 'Created', schema: okOf(r.Campaign) },
      handler: async ({ app, req, reply }) => {
        return reply.code(201).send(ok(await campaigns.create(app.db, req.key.accountId, jsonBody(req.body))));
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}',
      operationId: 'getCampaign',
      tag: 'Campaigns',
      summary: 'Get a campaign with its stats',
      description: '`warmup` is present while a sending domain’s warm-up holds recipients back.',
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'The campaign', schema: okOf(r.CampaignWithWarmup) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        const campaign = await campaigns.get(app.db, req.key.accountId, id);
        // our addition: present while a sending domain's warm-up holds recipients back (status stays 'sending')
        const held = await warmup.ofCampaign(app.db, app.config, req.key.accountId, id);
        return ok(held ? { ...campaign, warmup: held } : campaign);
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/checks',
      operationId: 'getCampaignChecks',
      tag: 'Campaigns',
      summary: 'The checks a campaign must pass before it is sent',
      description:
        'Each check has a level: a failed `block` check refuses scheduling and sending (422 with the failed checks in ' +
        '`data.checks`), a failed `warn` check only says so. `ok` is true when no blocking check failed.',
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'The checks', schema: okOf(r.SendChecks) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await sendChecks.ofCampaign(app.db, app.config, req.key.accountId, id));
      },
    },
    {
      method: 'put',
      path: '/campaigns/{id}',
      operationId: 'updateCampaign',
      tag: 'Campaigns',
      summary: 'Update a draft campaign',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: campaigns.CampaignUpdate,
      success: { status: 200, description: 'Updated', schema: okOf(r.Campaign) },
      errors: [conflict('Only draft campaigns can be updated.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await campaigns.update(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    deleteOperation({
      path: '/campaigns/{id}',
      operationId: 'deleteCampaign',
      tag: 'Campaigns',
      summary: 'Delete a campaign that is not sending',
      scope: 'campaigns:write',
      params: ID('campaign'),
      errors: [conflict('The campaign is sending.')],
      thing: 'Campaign',
      notFound: NOT_FOUND,
      remove: campaigns.remove,
    }),
    {
      method: 'post',
      path: '/campaigns/{id}/schedule',
      operationId: 'scheduleCampaign',
      tag: 'Campaigns',
      summary: 'Send a draft now or schedule it',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: campaigns.ScheduleInput,
      success: { status: 200, description: 'Scheduled', schema: okOf(r.Campaign) },
      errors: [
        conflict('Only draft campaigns can be scheduled.'),
        {
          status: 422,
          description:
            'A blocking check before sending failed (data.checks: the failed checks), or local-time delivery ' +
            'was asked for a campaign with an A/B test (no data).',
          schema: z.union([ChecksFailed, ErrorEnvelope]),
        },
      ],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await campaigns.schedule(app.db, app.config, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/cancel',
      operationId: 'cancelCampaign',
      tag: 'Campaigns',
      summary: 'Cancel a scheduled or sending campaign',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'Cancelled', schema: okOf(r.Campaign) },
      errors: [conflict('The campaign cannot be cancelled in its state.')],
      handler: async ({ app, req }) => {
        return ok(await campaigns.cancel(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/pause',
      operationId: 'pauseCampaign',
      tag: 'Campaigns',
      summary: 'Pause a sending campaign',
      description: 'No new messages go out (on every instance, within a second); resume continues where it stopped.',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'Paused', schema: okOf(r.Campaign) },
      errors: [conflict('Only sending campaigns can be paused.')],
      handler: async ({ app, req }) => {
        return ok(await campaigns.pause(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/resume',
      operationId: 'resumeCampaign',
      tag: 'Campaigns',
      summary: 'Resume a paused campaign',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'Sending again', schema: okOf(r.Campaign) },
      errors: [conflict('Only paused campaigns can be resumed.')],
      handler: async ({ app, req }) => {
        return ok(await campaigns.resume(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/ab-winner',
      operationId: 'pickAbWinner',
      tag: 'Campaigns',
      summary: "Pick an A/B test's winner by hand",
      description: 'The rest of the audience gets the winning variant at once.',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: abTests.WinnerInput,
      success: { status: 200, description: 'The campaign', schema: okOf(r.Campaign) },
      errors: [conflict('No A/B test, the winner is already chosen, or the campaign is not sending.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        await abTests.pickWinner(app.db, req.key.accountId, id, jsonBody(req.body));
        return ok(await campaigns.get(app.db, req.key.accountId, id));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/resend',
      operationId: 'resendCampaign',
      tag: 'Campaigns',
      summary: 'A follow-up draft to who did not open a sent campaign',
      description:
        'Its audience, fixed when it starts, is who the campaign reached without a human open (privacy-proxy opens do not count), ' +
        'minus anyone unsubscribed, bounced, complained or suppressed since.',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: resends.ResendInput,
      success: { status: 201, description: 'The new draft', schema: okOf(r.Campaign) },
      errors: [conflict('Only sent campaigns can be resent.')],
      handler: async ({ app, req, reply }) => {
        const id = pathId(req.params, NOT_FOUND);
        return reply.code(201).send(ok(await resends.resend(app.db, req.key.accountId, id, jsonBody(req.body))));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/retry',
      operationId: 'retryCampaign',
      tag: 'Campaigns',
      summary: 'Send again what failed (or was interrupted)',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: retries.RetryInput,
      success: { status: 200, description: 'Requeued', schema: okOf(r.RetryResult) },
      errors: [conflict('The campaign cannot be retried in its state.')],
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await retries.retry(app.db, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/recipients',
      operationId: 'listCampaignRecipients',
      tag: 'Campaigns',
      summary: "List a campaign's send ledger",
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      query: campaignStats.RecipientsQuery,
      success: { status: 200, description: 'One page', schema: pageOf('recipients', r.CampaignRecipient) },
      handler: async ({ app, req }) => {
        const page = await campaigns.recipients(app.db, req.key.accountId, pathId(req.params, NOT_FOUND), req.query);
        return listed('recipients', page);
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/preview',
      operationId: 'previewCampaign',
      tag: 'Campaigns',
      summary: 'Render a campaign for one subscriber, without tracking',
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      body: campaigns.PreviewInput,
      success: { status: 200, description: 'The rendered message', schema: okOf(r.Preview) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        return ok(await campaigns.preview(app.db, app.config, req.key.accountId, id, jsonBody(req.body)));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/test',
      operationId: 'sendCampaignTest',
      tag: 'Campaigns',
      summary: 'Send a test of a campaign to up to 5 addresses',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      body: drafts.TestInput,
      success: { status: 200, description: 'Sent', schema: okOf(r.TestSent) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        const input = jsonBody(req.body);
        return ok(await drafts.sendTest(app.db, app.config, app.transport, req.key.accountId, id, input));
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/links',
      operationId: 'listCampaignLinks',
      tag: 'Campaigns',
      summary: "A campaign's links and their clicks",
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      query: WholeListQuery,
      success: { status: 200, description: 'One page', schema: pageOf('links', r.CampaignLink) },
      handler: async ({ app, req }) => {
        const links = await reports.links(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
        const page = pageOfWhole(links, req.query);
        return listed('links', page);
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/clients',
      operationId: 'getCampaignClients',
      tag: 'Campaigns',
      summary: "A campaign's opens and clicks by email client and device",
      description:
        'Each recipient a person opened or clicked counts once, under the email client and device of their first ' +
        'open or click, read from its user agent (which is not stored). Privacy-proxy opens count nowhere.',
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      success: { status: 200, description: 'The breakdown', schema: okOf(r.CampaignClients) },
      handler: async ({ app, req }) =>
        ok(await reports.clients(app.db, req.key.accountId, pathId(req.params, NOT_FOUND))),
    },
    {
      method: 'get',
      path: '/campaigns/{id}/links/{link_id}/recipients',
      operationId: 'listLinkRecipients',
      tag: 'Campaigns',
      summary: 'Who clicked a link',
      scope: 'campaigns:read',
      spec: false,
      params: { ...ID('campaign'), link_id: "The link's link_id, from GET /campaigns/{id}/links." },
      textParams: ['link_id'],
      query: evidence.LinkRecipientsQuery,
      success: { status: 200, description: 'One page', schema: pageOf('recipients', r.LinkClicker) },
      handler: async ({ app, req }) => {
        const id = pathId(req.params, NOT_FOUND);
        const linkId = pathParam(req.params, 'link_id');
        const page = await evidence.linkRecipients(app.db, req.key.accountId, id, linkId, req.query);
        return listed('recipients', page);
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/providers',
      operationId: 'listCampaignProviders',
      tag: 'Campaigns',
      summary: "A campaign's ledger per mail provider",
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      query: WholeListQuery,
      success: { status: 200, description: 'One page, a row per provider', schema: pageOf('providers', r.ProviderRow) },
      handler: async ({ app, req }) => {
        const providers = await evidence.providers(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
        const page = pageOfWhole(providers, req.query);
        return listed('providers', page);
      },
    },
    {
      method: 'get',
      path: '/campaigns/{id}/recipients.csv',
      operationId: 'exportCampaignRecipients',
      tag: 'Campaigns',
      summary: "A campaign's send ledger as CSV",
      scope: 'campaigns:read',
      spec: false,
      params: ID('campaign'),
      query: reports.CsvQuery,
      success: { status: 200, description: 'The CSV, streamed', csv: true },
      handler: async ({ app, req, reply }) => {
        const id = pathId(req.params, NOT_FOUND);
        const lines = await reports.recipientsCsv(app.db, req.key.accountId, id, req.query);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="campaign-${id}-recipients.csv"`)
          .send(Readable.from(lines));
      },
    },
    {
      method: 'post',
      path: '/campaigns/{id}/duplicate',
      operationId: 'duplicateCampaign',
      tag: 'Campaigns',
      summary: 'Copy a campaign into a new draft',
      scope: 'campaigns:write',
      spec: false,
      params: ID('campaign'),
      success: { status: 201, description: 'The new draft', schema: okOf(r.Campaign) },
      handler: async ({ app, req, reply }) => {
        return reply
          .code(201)
          .send(ok(await drafts.duplicate(app.db, req.key.accountId, pathId(req.params, NOT_FOUND))));
      },
    },
    {
      method: 'get',
      path: '/outbox',
      operationId: 'listOutbox',
      tag: 'Outbox',
      summary: 'Captured mail (MAIL_TRANSPORT=outbox)',
      scope: 'campaigns:read',
      spec: false,
      query: PageQuery,
      success: { status: 200, description: 'One page', schema: pageOf('messages', r.OutboxSummary) },
      handler: async ({ app, req }) => {
        const page = await outbox.list(app.db, req.key.accountId, req.query);
        return listed('messages', page);
      },
    },
    {
      method: 'get',
      path: '/outbox/{id}',
      operationId: 'getOutboxMessage',
      tag: 'Outbox',
      summary: 'One captured message, whole',
      scope: 'campaigns:read',
      spec: false,
      params: ID('message'),
      success: { status: 200, description: 'The message', schema: okOf(r.OutboxMessage) },
      handler: async ({ app, req }) => {
        return ok(await outbox.get(app.db, req.key.accountId, pathId(req.params, 'Message not found')));
      },
    },
  ],
};
