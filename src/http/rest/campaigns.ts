// /api/v1/external/campaigns and /outbox: our addition to the spec's REST surface (the spec shows
// campaigns only as tools). Same rules as the MCP campaign tools: both call src/domain/campaigns.ts.
// Scopes campaigns:read / campaigns:write.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import * as campaigns from '../../domain/campaigns/campaigns.ts';
import * as drafts from '../../domain/campaigns/drafts.ts';
import * as evidence from '../../domain/campaigns/evidence.ts';
import * as outbox from '../../domain/campaigns/outbox.ts';
import * as reports from '../../domain/campaigns/reports.ts';
import * as retries from '../../domain/campaigns/retry.ts';
import * as warmup from '../../domain/campaigns/warmup.ts';
import { PageQuery } from '../../domain/paging.ts';
import { ok, pagination, parse, pathId } from './envelope.ts';

const NOT_FOUND = campaigns.NOT_FOUND;

export async function campaignRoutes(app: FastifyInstance) {
  app.get('/campaigns', { config: { scope: 'campaigns:read' } }, async (req) => {
    const page = await campaigns.list(app.db, req.key.accountId, req.query as campaigns.ListQuery);
    return ok({ campaigns: page.items, pagination: pagination(page) });
  });

  app.post('/campaigns', { config: { scope: 'campaigns:write' } }, async (req, reply) => {
    return reply
      .code(201)
      .send(ok(await campaigns.create(app.db, req.key.accountId, parse(campaigns.NewCampaign, req.body))));
  });

  app.get('/campaigns/:id', { config: { scope: 'campaigns:read' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    const campaign = await campaigns.get(app.db, req.key.accountId, id);
    // our addition: present while a sending domain's warm-up holds recipients back (status stays 'sending')
    const held = await warmup.ofCampaign(app.db, app.config, req.key.accountId, id);
    return ok(held ? { ...campaign, warmup: held } : campaign);
  });

  app.put('/campaigns/:id', { config: { scope: 'campaigns:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await campaigns.update(app.db, req.key.accountId, id, parse(campaigns.CampaignUpdate, req.body)));
  });

  app.delete('/campaigns/:id', { config: { scope: 'campaigns:write' } }, async (req) => {
    await campaigns.remove(app.db, req.key.accountId, pathId(req.params, NOT_FOUND));
    return { success: true, message: 'Campaign deleted successfully' };
  });

  app.post('/campaigns/:id/schedule', { config: { scope: 'campaigns:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(
      await campaigns.schedule(app.db, app.config, req.key.accountId, id, parse(campaigns.ScheduleInput, req.body)),
    );
  });

  app.post('/campaigns/:id/cancel', { config: { scope: 'campaigns:write' } }, async (req) => {
    return ok(await campaigns.cancel(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
  });

  app.post('/campaigns/:id/retry', { config: { scope: 'campaigns:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(await retries.retry(app.db, req.key.accountId, id, parse(retries.RetryInput, req.body)));
  });

  app.get('/campaigns/:id/recipients', { config: { scope: 'campaigns:read' } }, async (req) => {
    const page = await campaigns.recipients(
      app.db,
      req.key.accountId,
      pathId(req.params, NOT_FOUND),
      req.query as campaigns.RecipientsQuery,
    );
    return ok({ recipients: page.items, pagination: pagination(page) });
  });

  app.post('/campaigns/:id/preview', { config: { scope: 'campaigns:read' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    return ok(
      await campaigns.preview(app.db, app.config, req.key.accountId, id, parse(campaigns.PreviewInput, req.body)),
    );
  });

  app.post('/campaigns/:id/test', { config: { scope: 'campaigns:write' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    const input = parse(drafts.TestInput, req.body);
    return ok(await drafts.sendTest(app.db, app.config, app.transport, req.key.accountId, id, input));
  });

  app.get('/campaigns/:id/links', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok({ links: await reports.links(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)) });
  });

  app.get('/campaigns/:id/links/:link_id/recipients', { config: { scope: 'campaigns:read' } }, async (req) => {
    const id = pathId(req.params, NOT_FOUND);
    const linkId = String((req.params as { link_id: string }).link_id);
    const page = await evidence.linkRecipients(app.db, req.key.accountId, id, linkId, req.query as PageQuery);
    return ok({ recipients: page.items, pagination: pagination(page) });
  });

  app.get('/campaigns/:id/providers', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok({ providers: await evidence.providers(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)) });
  });

  app.get('/campaigns/:id/recipients.csv', { config: { scope: 'campaigns:read' } }, async (req, reply) => {
    const id = pathId(req.params, NOT_FOUND);
    const lines = await reports.recipientsCsv(app.db, req.key.accountId, id, req.query as reports.CsvQuery);
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="campaign-${id}-recipients.csv"`)
      .send(Readable.from(lines));
  });

  app.post('/campaigns/:id/duplicate', { config: { scope: 'campaigns:write' } }, async (req, reply) => {
    return reply.code(201).send(ok(await drafts.duplicate(app.db, req.key.accountId, pathId(req.params, NOT_FOUND))));
  });

  app.get('/outbox', { config: { scope: 'campaigns:read' } }, async (req) => {
    const page = await outbox.list(app.db, req.key.accountId, parse(PageQuery, req.query));
    return ok({ messages: page.items, pagination: pagination(page) });
  });

  app.get('/outbox/:id', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok(await outbox.get(app.db, req.key.accountId, pathId(req.params, 'Message not found')));
  });
}
