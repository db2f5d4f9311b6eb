// /app/api for the block editor: the image library (upload, list, delete), templates (starters and
// saved ones), the live render of an unsaved document, the merge tags of the picker and the "Preview
// as" subscriber search, and the preview of a form's confirmation mail not saved yet. Reads for every member, writes 'edit'; each route calls the domain that REST uses.
import type { FastifyInstance } from 'fastify';
import { mergeTags } from '../../../domain/content/mergeTags.ts';
import { renderBlocks } from '../../../domain/campaigns/drafts.ts';
import { previewCandidates } from '../../../domain/content/preview.ts';
import { previewConfirmation } from '../../../domain/forms/confirmationMail.ts';
import * as templates from '../../../domain/content/templates.ts';
import * as images from '../../../domain/images/images.ts';
import { imageUploads } from '../../imageUpload.ts';
import { pathParam } from '../../params.ts';
import { deleted, jsonBody, listed, ok, pathId } from '../../rest/envelope.ts';

const edit = { config: { permission: 'edit' as const } };

export async function contentRoutes(app: FastifyInstance) {
  const readImage = await imageUploads(app);

  app.post('/images', edit, async (req, reply) => {
    const file = await readImage(req);
    const image = await images.store(app.db, app.config.publicUrl, req.member.accountId, file.bytes, file.filename);
    return reply.code(201).send(ok(image));
  });

  app.get('/images', async (req) =>
    listed('images', await images.list(app.db, app.config.publicUrl, req.member.accountId, req.query)),
  );

  app.delete('/images/:id', edit, async (req) => {
    const id = pathId(req.params, images.NOT_FOUND);
    await images.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Image');
  });

  app.get('/templates', async (req) =>
    ok({ templates: await templates.list(app.db, req.member.accountId, req.query) }),
  );

  app.post('/templates', edit, async (req, reply) =>
    reply.code(201).send(ok(await templates.create(app.db, req.member.accountId, jsonBody(req.body)))),
  );

  app.delete('/templates/:id', edit, async (req) => {
    const id = pathParam(req.params, 'id');
    await templates.remove(app.db, req.member.accountId, id);
    return deleted(id, 'Template');
  });

  app.post('/blocks/render', async (req) => ok(await renderBlocks(app.db, req.member.accountId, jsonBody(req.body))));

  app.post('/confirmation/render', async (req) =>
    ok(await previewConfirmation(app.db, req.member.accountId, app.config.publicUrl, jsonBody(req.body))),
  );

  app.get('/merge-tags', async (req) => ok({ tags: await mergeTags(app.db, req.member.accountId) }));

  app.get('/preview-subscribers', async (req) =>
    ok({ subscribers: await previewCandidates(app.db, req.member.accountId, req.query) }),
  );
}
