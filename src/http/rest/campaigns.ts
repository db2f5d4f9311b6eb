// /api/v1/external/campaigns and /outbox: our addition to the spec's REST surface (the spec shows
// campaigns only as tools). Same rules as the MCP campaign tools: both call src/domain/campaigns.ts.
// Scopes campaigns:read / campaigns:write.
import type { FastifyInstance } from 'fastify';
import * as campaigns from '../../domain/campaigns/campaigns.ts';
import * as outbox from '../../domain/campaigns/outbox.ts';
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
    return ok(await campaigns.get(app.db, req.key.accountId, pathId(req.params, NOT_FOUND)));
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

  app.get('/outbox', { config: { scope: 'campaigns:read' } }, async (req) => {
    const page = await outbox.list(app.db, req.key.accountId, parse(PageQuery, req.query));
    return ok({ messages: page.items, pagination: pagination(page) });
  });

  app.get('/outbox/:id', { config: { scope: 'campaigns:read' } }, async (req) => {
    return ok(await outbox.get(app.db, req.key.accountId, pathId(req.params, 'Message not found')));
  });
}
