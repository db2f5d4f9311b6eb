// Serves the built React app (web/dist, made by `npm run build:web`, which postinstall runs): index.html at
// `/` and every client route under /app/, hashed assets under /assets/ with a long cache. Without a build
// the dashboard answers a short HTML page that says how to make one, instead of a bare 404.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));
// browsers, feed readers and mail clients ask for /favicon.ico on every host they visit, pages or not
const FAVICON = readFileSync(new URL('../../../web/favicon.ico', import.meta.url));

// no inline script, nothing from elsewhere; frames only from us (the outbox message view)
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mailgrove</title></head>
<body style="font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>The dashboard has not been built</h1>
<p>The API is running. To get the dashboard, build it once and reload this page:</p>
<pre style="background:#f3f4f6;padding:1rem">npm run build:web</pre>
<p>(<code>npm install</code> builds it too.)</p></body></html>`;

export async function spa(app: FastifyInstance) {
  let index: string | undefined;
  const page = (reply: FastifyReply) => {
    // read once it exists; until then look again on each request, so a build shows up without a restart
    index ??= existsSync(WEB_DIST + 'index.html') ? readFileSync(WEB_DIST + 'index.html', 'utf8') : undefined;
    reply
      .header('content-security-policy', CSP)
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8');
    return index ? reply.send(index) : reply.code(503).send(NOT_BUILT);
  };
  app.get('/', async (_req, reply) => page(reply));
  app.get('/app', async (_req, reply) => page(reply));
  app.get('/app/*', async (_req, reply) => page(reply));
  app.get('/favicon.ico', async (_req, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );

  await app.register(fastifyStatic, {
    root: WEB_DIST + 'assets',
    prefix: '/assets/',
    index: false,
    // file names carry a content hash: a changed file is a new URL
    immutable: true,
    maxAge: '365d',
  });
}
