// GET /api/v1/openapi.json (the REST API's OpenAPI 3.1 document, ./document.ts) and GET /api/docs (a
// reference page that renders it with Redoc's standalone bundle, served from node_modules: no CDN, nothing
// fetched from elsewhere). Both public, like the health checks: the document holds no account data.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildDocument } from './document.ts';

export const DOCUMENT_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/docs';

const REDOC_BUNDLE = join(
  dirname(createRequire(import.meta.url).resolve('redoc/package.json')),
  'bundles/redoc.standalone.js',
);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Mailgrove REST API</title>
<style>body { margin: 0; }</style>
</head>
<body>
<div id="redoc"></div>
<script src="${DOCS_PATH}/redoc.standalone.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

const INIT = `Redoc.init(${JSON.stringify(DOCUMENT_PATH)}, {
  hideDownloadButton: false,
  expandResponses: '200,201,202',
  jsonSampleExpandLevel: 3,
  theme: { colors: { primary: { main: '#2f6f4f' } }, typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' } } },
}, document.getElementById('redoc'));
`;

// the page runs only its own scripts; Redoc styles itself inline and runs its search index in a blob worker
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export async function openapiRoutes(app: FastifyInstance): Promise<void> {
  let body: string | undefined;
  app.get(DOCUMENT_PATH, { config: { public: true } }, async (_req, reply) => {
    body ??= JSON.stringify(buildDocument({ version: app.config.version }));
    return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(body);
  });

  app.get(DOCS_PATH, { config: { public: true } }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', CSP).send(PAGE),
  );
  app.get(`${DOCS_PATH}/init.js`, { config: { public: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').send(INIT),
  );
  app.get(`${DOCS_PATH}/redoc.standalone.js`, { config: { public: true } }, async (_req, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(createReadStream(REDOC_BUNDLE)),
  );
}
