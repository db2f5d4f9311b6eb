// /app/api/campaigns and /app/api/campaign-templates: the campaign editor, list, previews, test sends,
// progress and reports of the dashboard (docs/dashboard-api.md). Reads for every member, writes 'edit'.
// Each route calls the campaigns domain, the same functions as REST and MCP.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import * as abTests from '../../../domain/campaigns/abTests.ts';
import * as campaigns from '../../../domain/campaigns/campaigns.ts';
import * as resends from '../../../domain/campaigns/resends.ts';
import * as sendChecks from '../../../domain/campaigns/checks.ts';
import * as drafts from '../../../domain/campaigns/drafts.ts';
import * as evidence from '../../../domain/campaigns/evidence.ts';
import { audienceCount } from '../../../domain/campaigns/ledger.ts';
import * as reports from '../../../domain/campaigns/reports.ts';
import * as retries from '../../../domain/delivery/retry.ts';
import * as rows from '../../../domain/campaigns/rows.ts';
import * as warmup from '../../../domain/campaigns/warmup.ts';
import { starters } from '../../../domain/campaigns/starters.ts';
import { deleted, jsonBody, listed, ok, parse, pathId, wholeList } from '../../rest/envelope.ts';
import { pathParam } from '../../params.ts';

const NOT_FOUND = campaigns.NOT_FOUND;
const edit = { config: { permission: 'edit' as const } };
const Audience = z.object({ group_ids: campaigns.Fields.group_ids, segment_ids: campaigns.Fields.segment_ids });
const Preview = campaigns.PreviewInput.pick({ subscriber_id: true });
// the dashboard names the recipient filter "state"; its values are the REST filter's
const stateQuery = (query: unknown): campaigns.RecipientsQuery => {
  const { state, ...rest } = (query ?? {}) as Record<string, unknown>;
  return { ...rest, ...(state !== undefined && state !== '' && { filter: state }) } as campaigns.RecipientsQuery;
};

export async function campaignRoutes(app: FastifyInstance) {
  const id = (params: unknown) => pathId(params, NOT_FOUND);

  app.get('/campaign-templates', async () => listed('templates', wholeList(starters())));

  app.get('/campaigns', async (req) => {
    return listed('campaigns', await rows.page(app.db, req.member.accountId, req.query));
  });

  app.post('/campaigns', edit, async (req, reply) => {
    const created = await drafts.create(app.db, req.member.accountId, jsonBody(req.body));
    return reply.code(201).send(ok(await rows.detail(app.db, req.member.accountId, created)));
  });

  app.post('/campaigns/audience-count', async (req) => {
    const a = parse(Audience, req.body);
    const count = await audienceCount(
      app.db,
      app.config.secret,
      req.member.accountId,
      a.group_ids ?? [],
      a.segment_ids ?? [],
    );
    return ok({ count });
  });

  app.post('/campaigns/render', async (req) =>
    ok(await drafts.render(app.db, req.member.accountId, jsonBody(req.body))),
  );

  app.get('/campaigns/:id', async (req) => ok(await rows.detail(app.db, req.member.accountId, id(req.params))));

  app.put('/campaigns/:id', edit, async (req) => {
    const cid = id(req.params);
    await drafts.update(app.db, req.member.accountId, cid, jsonBody(req.body));
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.delete('/campaigns/:id', edit, async (req) => {
    const cid = id(req.params);
    await campaigns.remove(app.db, req.member.accountId, cid);
    return deleted(cid, 'Campaign');
  });

  app.post('/campaigns/:id/duplicate', edit, async (req, reply) => {
    const copy = await drafts.duplicate(app.db, req.member.accountId, id(req.params));
    return reply.code(201).send(ok(await rows.detail(app.db, req.member.accountId, copy.id)));
  });

  app.post('/campaigns/:id/preview', async (req) => {
    const p = await campaigns.preview(
      app.db,
      app.config,
      req.member.accountId,
      id(req.params),
      parse(Preview, req.body),
    );
    return ok({ subject: p.subject, html: p.html, text: p.text });
  });

  app.post('/campaigns/:id/test', edit, async (req) =>
    ok(
      await drafts.sendTest(
        app.db,
        app.config,
        app.transport,
        req.member.accountId,
        id(req.params),
        jsonBody(req.body),
      ),
    ),
  );

  app.get('/campaigns/:id/checks', async (req) =>
    ok(await sendChecks.ofCampaign(app.db, app.config, req.member.accountId, id(req.params))),
  );

  app.post('/campaigns/:id/schedule', edit, async (req) => {
    const cid = id(req.params);
    await campaigns.schedule(app.db, app.config, req.member.accountId, cid, jsonBody(req.body));
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.post('/campaigns/:id/cancel', edit, async (req) => {
    const cid = id(req.params);
    await campaigns.cancel(app.db, req.member.accountId, cid);
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.post('/campaigns/:id/pause', edit, async (req) => {
    const cid = id(req.params);
    await campaigns.pause(app.db, req.member.accountId, cid);
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.post('/campaigns/:id/resume', edit, async (req) => {
    const cid = id(req.params);
    await campaigns.resume(app.db, req.member.accountId, cid);
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.post('/campaigns/:id/ab-winner', edit, async (req) => {
    const cid = id(req.params);
    await abTests.pickWinner(app.db, req.member.accountId, cid, jsonBody(req.body));
    return ok(await rows.detail(app.db, req.member.accountId, cid));
  });

  app.post('/campaigns/:id/resend', edit, async (req, reply) => {
    const copy = await resends.resend(app.db, req.member.accountId, id(req.params), jsonBody(req.body));
    return reply.code(201).send(ok(await rows.detail(app.db, req.member.accountId, copy.id)));
  });

  app.get('/campaigns/:id/retry', async (req) =>
    ok(await retries.retryable(app.db, req.member.accountId, id(req.params))),
  );

  app.post('/campaigns/:id/retry', edit, async (req) =>
    ok(await retries.retry(app.db, req.member.accountId, id(req.params), jsonBody(req.body))),
  );

  app.get('/campaigns/:id/progress', async (req) => {
    const cid = id(req.params);
    const progress = await reports.progress(app.db, req.member.accountId, cid);
    return ok({ ...progress, warmup: await warmup.ofCampaign(app.db, app.config, req.member.accountId, cid) });
  });

  app.get('/campaigns/:id/report', async (req) =>
    ok(await reports.report(app.db, req.member.accountId, id(req.params))),
  );

  app.get('/campaigns/:id/recipients', async (req) => {
    const page = await reports.recipientRows(app.db, req.member.accountId, id(req.params), stateQuery(req.query));
    return listed('recipients', page);
  });

  app.get('/campaigns/:id/providers', async (req) =>
    listed('providers', wholeList(await evidence.providers(app.db, req.member.accountId, id(req.params)))),
  );

  app.get('/campaigns/:id/links/:link_id/recipients', async (req) => {
    const linkId = pathParam(req.params, 'link_id');
    const page = await evidence.linkRecipients(app.db, req.member.accountId, id(req.params), linkId, req.query);
    return listed('recipients', page);
  });

  app.get('/campaigns/:id/recipients.csv', async (req, reply) => {
    const cid = id(req.params);
    const lines = await reports.recipientsCsv(app.db, req.member.accountId, cid, stateQuery(req.query));
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="campaign-${cid}-recipients.csv"`)
      .send(Readable.from(lines));
  });
}
