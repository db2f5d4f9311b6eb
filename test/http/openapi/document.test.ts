// The OpenAPI document of the REST API (GET /api/v1/openapi.json, built from the routes' zod schemas by
// src/http/openapi/): it is well-formed OpenAPI 3.1, it names every route the REST plugin registers, and
// real answers of the running server, successes and errors alike, match its schema for their operation
// and status. The reference page (GET /api/docs) is checked in Chromium in a file of its own.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import Fastify, { type RouteOptions } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { healthRoutes } from '../../../src/http/health.ts';
import { restRoutes } from '../../../src/http/rest/routes.ts';
import { EXAMPLES_FILE, type RecordedExample } from '../../../src/http/openapi/document.ts';
import { REST_PREFIX } from '../../../src/http/rest/operation.ts';
import { sendCampaignTo, seedAudience } from '../../support/campaigns.ts';
import { png, svg } from '../../support/images.ts';
import { startDnsServer } from '../../support/dnsServer.ts';
import { client, restClient, startServer, type ApiResponse } from '../../support/server.ts';
import { startSink } from '../../support/smtpSink.ts';
import { until } from '../../support/until.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

// sending-domain checks ask this loopback DNS server, never the network
const dns = await startDnsServer({ after });
const s = await startServer(
  { after },
  { ALLOW_PRIVATE_WEBHOOK_URLS: true, ALLOW_PRIVATE_SMTP_RELAYS: true, DNS_SERVERS: dns.server },
);
const MISSING = '00000000-0000-4000-8000-000000000000';

type Doc = {
  openapi: string;
  info: object;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};
let doc: Doc;

/** The document's path template for a Fastify route url: ':id' → '{id}'. */
const templateOf = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/** Every route the REST plugin and the health checks register, read from a Fastify instance. */
async function registeredRoutes(): Promise<{ method: string; path: string; scope?: string }[]> {
  const app = Fastify();
  const seen: RouteOptions[] = [];
  app.addHook('onRoute', (r) => void seen.push(r));
  app.decorate('config', s.config);
  app.decorate('db', s.db);
  await app.register(healthRoutes);
  await app.register(
    async (rest) => {
      for (const routes of restRoutes) await rest.register(routes);
    },
    { prefix: REST_PREFIX },
  );
  await app.ready();
  await app.close();
  return seen.flatMap((r) =>
    [r.method]
      .flat()
      .filter((m) => m !== 'HEAD')
      .map((m) => ({ method: m.toLowerCase(), path: templateOf(r.url), scope: r.config?.scope })),
  );
}

/** Every `$ref` in the document, with where it stands. */
function refsOf(node: unknown, at = '#'): { ref: string; at: string }[] {
  if (node === null || typeof node !== 'object') return [];
  if (Array.isArray(node)) return node.flatMap((v, i) => refsOf(v, `${at}/${i}`));
  return Object.entries(node).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refsOf(v, `${at}/${k}`),
  );
}

function resolve(ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `only local refs: ${ref}`);
  let node: any = doc;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

let ajv: Ajv2020;
const validators = new Map<string, ValidateFunction>();

/** A JSON pointer of these keys. */
const pointer = (...keys: string[]) => keys.map((k) => '/' + k.replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/** A validator of the schema at this pointer of the document (its refs resolve inside the document). */
const schemaAt = (ptr: string) => ajv.compile({ $ref: `openapi.json#${ptr}` });

/** Validates a real answer against the document's schema for the operation and its status. */
function conforms(method: string, path: string, res: ApiResponse, requestBody?: unknown): void {
  const op = doc.paths[path]?.[method];
  assert.ok(op, `${method.toUpperCase()} ${path} is not in the document`);
  const response = op.responses[String(res.status)];
  assert.ok(
    response,
    `${method.toUpperCase()} ${path} answered ${res.status}, which the document does not list: ${JSON.stringify(res.body)}`,
  );
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const media = response.content?.[type];
  assert.ok(media, `${method.toUpperCase()} ${path} ${res.status}: the document has no ${type} answer`);
  outcomes.add(`${method} ${path} ${res.status >= 400 ? 'error' : 'success'}`);
  if (type !== 'application/json') return;
  const key = `${method} ${path} ${res.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile({
      $ref: `openapi.json#${pointer('paths', path, method, 'responses', String(res.status))}/content/application~1json/schema`,
    });
    validators.set(key, validate);
  }
  assert.ok(
    validate(res.body),
    `${key}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body, null, 2).slice(0, 3000)}`,
  );
  if (RECORD) {
    const example = (recorded[op.operationId] ??= { responses: {} });
    example.responses[String(res.status)] ??= res.body;
    if (res.status < 300 && requestBody !== undefined) example.request ??= requestBody;
  }
  outcomes.add(`${method} ${path} ${res.status >= 400 ? 'error' : 'success'}`);
}

/** OPENAPI_EXAMPLES=write: the first answer of each operation and status becomes the document's example. */
const RECORD = process.env.OPENAPI_EXAMPLES === 'write';
const recorded: Record<string, RecordedExample> = {};
after(async () => {
  if (!RECORD) return;
  const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
  // written as the formatter writes it, so format:check stays quiet
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(EXAMPLES_FILE)) ?? {};
  // a webhook's signing secret from this throwaway database still reads as one: shown as a placeholder
  const text = JSON.stringify(sorted, (k, v) =>
    k === 'secret' && typeof v === 'string' ? `whsec_${'x'.repeat(32)}` : v,
  );
  writeFileSync(EXAMPLES_FILE, await prettier.format(text, { ...options, filepath: EXAMPLES_FILE }));
});
const outcomes = new Set<string>();

before(async () => {
  const res = await fetch(`${s.url}/api/v1/openapi.json`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  doc = (await res.json()) as Doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // the whole document as one schema resource, so '#/components/schemas/…' resolves inside it
  ajv.addSchema(doc, 'openapi.json');
});

describe('the OpenAPI document', () => {
  test('is OpenAPI 3.1: info, paths, unique operationIds, declared path parameters, refs that resolve', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.info);
    assert.deepEqual(Object.keys(doc.components.securitySchemes), ['bearer']);
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries(item)) {
        assert.ok(['get', 'put', 'post', 'delete', 'patch'].includes(method), `${path}: ${method}`);
        assert.ok(op.operationId, `${method} ${path} has no operationId`);
        assert.ok(!ids.has(op.operationId), `operationId ${op.operationId} twice`);
        ids.add(op.operationId);
        const declared = (op.parameters ?? [])
          .filter((p: any) => p.in === 'path')
          .map((p: any) => (p.required === true ? p.name : `${p.name} (not required)`));
        assert.deepEqual([...declared].sort(), [...inPath].sort(), `${method} ${path}: path parameters`);
        assert.ok(Object.keys(op.responses).length > 0, `${method} ${path}: no responses`);
        for (const [status, response] of Object.entries<any>(op.responses)) {
          assert.ok(/^[1-5]\d\d$/.test(status), `${method} ${path}: status ${status}`);
          assert.ok(response.description, `${method} ${path} ${status}: no description`);
        }
        const example = Object.values<any>(op.responses)[0]?.content?.['application/json']?.example;
        const csv = Object.values<any>(op.responses)[0]?.content?.['text/csv']?.example;
        assert.ok(example !== undefined || csv !== undefined, `${method} ${path}: no example`);
      }
    }
    for (const { ref, at } of refsOf(doc)) assert.notEqual(resolve(ref), undefined, `${at}: ${ref} does not resolve`);
  });

  test('every example in the document matches its own schema', () => {
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries<any>(op.responses)) {
          const media = response.content?.['application/json'];
          if (media?.example === undefined) continue;
          const validate = schemaAt(
            `${pointer('paths', path, method, 'responses', status)}/content/application~1json/schema`,
          );
          assert.ok(validate(media.example), `${method} ${path} ${status} example: ${ajv.errorsText(validate.errors)}`);
        }
        const body = op.requestBody?.content?.['application/json'];
        if (body?.example !== undefined) {
          const validate = schemaAt(
            `${pointer('paths', path, method, 'requestBody')}/content/application~1json/schema`,
          );
          assert.ok(validate(body.example), `${method} ${path} request example: ${ajv.errorsText(validate.errors)}`);
        }
      }
  });

  // routes and document come from the same declarations (src/http/rest/operation.ts): this catches a route
  // registered beside them, which the document would not know
  test('names every route the REST plugin and the health checks register, with the route’s scope', async () => {
    const routes = await registeredRoutes();
    assert.ok(routes.length > 50, `only ${routes.length} routes found`);
    for (const r of routes) {
      const op = doc.paths[r.path]?.[r.method];
      assert.ok(op, `${r.method.toUpperCase()} ${r.path} is registered but not in the document`);
      assert.equal(op['x-scope'] ?? undefined, r.scope, `${r.method.toUpperCase()} ${r.path}: scope`);
    }
    const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item))
        if (path !== '/api/v1/openapi.json' && path !== '/api/docs')
          assert.ok(registered.has(`${method} ${path}`), `${method} ${path} is documented but not registered`);
  });
});

describe('real answers match the document', () => {
  const dump: unknown[] = [];
  after(async () => {
    if (process.env.OPENAPI_DUMP)
      (await import('node:fs')).writeFileSync(process.env.OPENAPI_DUMP, JSON.stringify(dump, null, 1));
  });

  /** One real request: `route` is the document's path after the REST prefix, `path` the one requested. */
  async function call(
    api: ReturnType<typeof client>,
    method: 'get' | 'post' | 'put' | 'delete',
    route: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<ApiResponse> {
    const res =
      method === 'get' || method === 'delete'
        ? await api[method](path, headers)
        : await api[method](path, body, headers);
    const full = route.startsWith('/api/health') ? route : `${REST_PREFIX}${route}`;
    dump.push({ method, route: full, status: res.status, body: res.body });
    if (process.env.OPENAPI_DUMP) {
      try {
        conforms(method, full, res, body);
      } catch (err) {
        dump.push({ failed: String(err).slice(0, 600) });
      }
    } else conforms(method, full, res, body);
    return res;
  }

  test('health, test-auth, 401 and 403 (scope)', async () => {
    const root = client(s.url);
    await call(root, 'get', '/api/health', '/api/health');
    await call(root, 'get', '/api/health/ready', '/api/health/ready');
    const { api } = await s.restAccount();
    await call(api, 'get', '/test-auth', '/test-auth');
    await call(restClient(s.url), 'get', '/test-auth', '/test-auth');
    await call(restClient(s.url, 'mg_live_' + '0'.repeat(32)), 'get', '/subscribers', '/subscribers');
    const reader = (await s.restAccount({ scopes: ['subscribers:read'] })).api;
    await call(reader, 'post', '/subscribers', '/subscribers', { email: 'no@example.com' });
  });

  test('subscribers, fields and groups', async () => {
    const { api } = await s.restAccount();
    const field = (await call(api, 'post', '/fields', '/fields', { key: 'company', name: 'Company' })).body.data;
    await call(api, 'post', '/fields', '/fields', { key: '1bad' });
    await call(api, 'get', '/fields', '/fields');
    const spare = (await call(api, 'post', '/fields', '/fields', { key: 'spare', type: 'number' })).body.data;
    await call(api, 'delete', '/fields/{id}', `/fields/${spare.id}`);
    await call(api, 'delete', '/fields/{id}', `/fields/${MISSING}`);

    const group = (await call(api, 'post', '/groups', '/groups', { name: 'VIP' })).body.data;
    await call(api, 'post', '/groups', '/groups', { name: 'vip' });
    await call(api, 'post', '/groups', '/groups', { name: '' });
    await call(api, 'get', '/groups', '/groups?per_page=10');
    await call(api, 'get', '/groups', '/groups?page=0');
    await call(api, 'get', '/groups/{id}', `/groups/${group.id}`);
    await call(api, 'get', '/groups/{id}', `/groups/${MISSING}`);
    await call(api, 'put', '/groups/{id}', `/groups/${group.id}`, { name: 'VIPs' });
    await call(api, 'put', '/groups/{id}', `/groups/${group.id}`, { name: 42 });

    const created = await call(api, 'post', '/subscribers', '/subscribers', {
      email: 'ada@example.com',
      first_name: 'Ada',
      phone: '+441234567',
      group_ids: [group.id],
      custom_fields: { company: 'Analytical' },
    });
    const sub = created.body.data;
    await call(api, 'post', '/subscribers', '/subscribers', { email: 'ADA@example.com' });
    await call(api, 'post', '/subscribers', '/subscribers', { email: 'not an address' });
    await call(api, 'post', '/subscribers', '/subscribers', '{"email":', { 'content-type': 'application/json' });
    const other = (await call(api, 'post', '/subscribers', '/subscribers', { email: 'bob@example.com' })).body.data;
    await call(api, 'get', '/subscribers', '/subscribers?search=ada&status=active');
    await call(api, 'get', '/subscribers', '/subscribers?status=gone');
    await call(api, 'get', '/subscribers/stats', '/subscribers/stats');
    await call(api, 'get', '/subscribers/{id}', `/subscribers/${sub.id}`);
    await call(api, 'get', '/subscribers/{id}', `/subscribers/${MISSING}`);
    await call(api, 'put', '/subscribers/{id}', `/subscribers/${sub.id}`, {
      last_name: 'Lovelace',
      status: 'unsubscribed',
    });
    await call(api, 'put', '/subscribers/{id}', `/subscribers/${sub.id}`, { status: 'bounced' });
    await call(api, 'put', '/subscribers/{id}', `/subscribers/${MISSING}`, { first_name: 'X' });
    await call(api, 'get', '/groups/{id}/subscribers', `/groups/${group.id}/subscribers`);
    await call(api, 'get', '/groups/{id}/subscribers', `/groups/${MISSING}/subscribers`);
    await call(api, 'post', '/groups/{id}/subscribers/{subscriberId}', `/groups/${group.id}/subscribers/${other.id}`);
    await call(api, 'post', '/groups/{id}/subscribers/{subscriberId}', `/groups/${group.id}/subscribers/${MISSING}`);
    await call(api, 'delete', '/groups/{id}/subscribers/{subscriberId}', `/groups/${group.id}/subscribers/${other.id}`);
    await call(api, 'delete', '/groups/{id}/subscribers/{subscriberId}', `/groups/${MISSING}/subscribers/${other.id}`);
    await call(api, 'post', '/subscribers/bulk', '/subscribers/bulk', {
      action: 'add_to_group',
      group_id: group.id,
      ids: [other.id],
    });
    await call(api, 'post', '/subscribers/bulk', '/subscribers/bulk', { action: 'unsubscribe' });
    await call(api, 'get', '/subscribers/export', '/subscribers/export?status=active');
    await call(api, 'get', '/subscribers/export', '/subscribers/export?status=gone');
    await call(api, 'delete', '/subscribers/{id}', `/subscribers/${other.id}`);
    await call(api, 'delete', '/subscribers/{id}', `/subscribers/${other.id}`);
    await call(api, 'delete', '/groups/{id}', `/groups/${group.id}`);
    await call(api, 'delete', '/groups/{id}', `/groups/${group.id}`);
    await call(api, 'delete', '/fields/{id}', `/fields/${field.id}`);

    const small = (await s.restAccount({ limit: 1 })).api;
    await call(small, 'post', '/subscribers', '/subscribers', { email: 'one@example.com' });
    await call(small, 'post', '/subscribers', '/subscribers', { email: 'two@example.com' });
  });

  test('images and templates', async () => {
    const { key, api } = await s.restAccount();
    const upload = async (bytes: Uint8Array, name: string): Promise<ApiResponse> => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), name);
      const r = await fetch(`${s.url}${REST_PREFIX}/images`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      return { status: r.status, headers: r.headers, body: await r.json() };
    };
    const stored = await upload(png(), 'hero.png');
    dump.push({ method: 'post', route: 'images', status: stored.status, body: stored.body });
    conforms('post', `${REST_PREFIX}/images`, stored);
    conforms('post', `${REST_PREFIX}/images`, await upload(svg(), 'logo.svg'));
    await call(api, 'get', '/images', '/images');
    await call(api, 'get', '/images', '/images?page=-1');
    await call(api, 'delete', '/images/{id}', `/images/${stored.body.data.id}`);
    await call(api, 'delete', '/images/{id}', `/images/${stored.body.data.id}`);

    await call(api, 'get', '/templates', '/templates?kind=campaign');
    await call(api, 'get', '/templates', '/templates?kind=nope');
    const document = {
      version: 1,
      blocks: [
        { id: 'h', type: 'heading', level: 1, text: 'Hello' },
        { id: 'f', type: 'footer' },
      ],
    };
    const saved = (await call(api, 'post', '/templates', '/templates', { name: 'Ours', document })).body.data;
    await call(api, 'post', '/templates', '/templates', {
      name: 'Bad',
      document: { version: 1, blocks: [{ id: 'x', type: 'video' }] },
    });
    await call(api, 'delete', '/templates/{id}', `/templates/${saved.id}`);
    await call(api, 'delete', '/templates/{id}', `/templates/${saved.id}`);
  });

  test('imports', async () => {
    const { key, api } = await s.restAccount();
    const upload = (csv: string) => {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'list.csv');
      return fetch(`${s.url}${REST_PREFIX}/subscribers/import-async`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
    };
    const asResponse = async (r: Response): Promise<ApiResponse> => ({
      status: r.status,
      headers: r.headers,
      body: await r.json(),
    });
    const started = await asResponse(await upload('email,first_name\nimp1@example.com,Imp\nimp2@example.com,Two\n'));
    dump.push({ method: 'post', route: 'import-async', status: started.status, body: started.body });
    conforms('post', `${REST_PREFIX}/subscribers/import-async`, started);
    const refused = await asResponse(await upload('name\nNo email\n'));
    conforms('post', `${REST_PREFIX}/subscribers/import-async`, refused);
    const jobId = started.body.data.job_id;
    await until('the import', async () => (await api.get(`/imports/${jobId}`)).body.data.status !== 'processing');
    await call(api, 'get', '/imports', '/imports');
    await call(api, 'get', '/imports', '/imports?per_page=x');
    await call(api, 'get', '/imports/{id}', `/imports/${jobId}`);
    await call(api, 'get', '/imports/{id}', `/imports/${MISSING}`);
  });

  test('segments and forms', async () => {
    const { api } = await s.restAccount();
    await api.post('/subscribers', { email: 'seg@example.com' });
    const filter = { match: 'all', rules: [{ field: 'email', operator: 'contains', value: 'seg' }] };
    const seg = (await call(api, 'post', '/segments', '/segments', { name: 'Seg', filter })).body.data;
    await call(api, 'post', '/segments', '/segments', { name: 'Bad', filter: { match: 'all', rules: [] } });
    await call(api, 'get', '/segments', '/segments');
    await call(api, 'get', '/segments', '/segments?per_page=0');
    await call(api, 'get', '/segments/{id}', `/segments/${seg.id}`);
    await call(api, 'get', '/segments/{id}', `/segments/${MISSING}`);
    await call(api, 'put', '/segments/{id}', `/segments/${seg.id}`, { name: 'Segment' });
    await call(api, 'put', '/segments/{id}', `/segments/${seg.id}`, { filter: { match: 'some' } });
    await call(api, 'get', '/segments/{id}/subscribers', `/segments/${seg.id}/subscribers`);
    await call(api, 'get', '/segments/{id}/subscribers', `/segments/${MISSING}/subscribers`);
    await call(api, 'delete', '/segments/{id}', `/segments/${seg.id}`);
    await call(api, 'delete', '/segments/{id}', `/segments/${seg.id}`);

    const form = (await call(api, 'post', '/forms', '/forms', { name: 'Newsletter', double_opt_in: false })).body.data;
    await call(api, 'post', '/forms', '/forms', { name: '' });
    await call(api, 'get', '/forms', '/forms');
    await call(api, 'get', '/forms', '/forms?page=x');
    await call(api, 'get', '/forms/{id}', `/forms/${form.id}`);
    await call(api, 'get', '/forms/{id}', `/forms/${MISSING}`);
    await call(api, 'put', '/forms/{id}', `/forms/${form.id}`, { success_message: 'Thanks!' });
    await call(api, 'put', '/forms/{id}', `/forms/${form.id}`, { type: 'banner' });
    await call(api, 'get', '/forms/{id}/subscribers', `/forms/${form.id}/subscribers`);
    await call(api, 'get', '/forms/{id}/subscribers', `/forms/${MISSING}/subscribers`);
    await call(api, 'delete', '/forms/{id}', `/forms/${form.id}`);
    await call(api, 'delete', '/forms/{id}', `/forms/${form.id}`);

    const doi = (await api.post('/forms', { name: 'Confirmed list', double_opt_in: true })).body.data;
    for (const email of ['doi1@example.com', 'doi2@example.com'])
      await fetch(`${s.url}/f/${doi.id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ email }),
      });
    const [one, two] = (await call(api, 'get', '/signups', '/signups')).body.data.signups;
    await call(api, 'get', '/signups', '/signups?status=lost');
    await s.db
      .updateTable('pending_signups')
      .set({ last_sent_at: new Date(Date.now() - 120_000) })
      .where('id', '=', one.id)
      .execute();
    await call(api, 'post', '/signups/{id}/resend', `/signups/${one.id}/resend`);
    await call(api, 'post', '/signups/{id}/resend', `/signups/${MISSING}/resend`);
    await call(api, 'post', '/signups/{id}/confirm', `/signups/${two.id}/confirm`, { reason: 'Signed at the fair' });
    await call(api, 'post', '/signups/{id}/confirm', `/signups/${two.id}/confirm`, { reason: '' });
  });

  test('campaigns, the outbox and warm-up plans', async () => {
    const { api, accountId } = await s.restAccount();
    const sent = await sendCampaignTo(s.db, api, accountId, ['c1@links.test', 'c2@links.test']);
    const id = sent.campaignId;
    await call(api, 'get', '/campaigns', '/campaigns');
    await call(api, 'get', '/campaigns', '/campaigns?status=lost');
    await call(api, 'get', '/campaigns/{id}', `/campaigns/${id}`);
    await call(api, 'get', '/campaigns/{id}', `/campaigns/${MISSING}`);
    await call(api, 'get', '/campaigns/{id}/checks', `/campaigns/${id}/checks`);
    await call(api, 'get', '/campaigns/{id}/checks', `/campaigns/${MISSING}/checks`);
    await call(api, 'get', '/campaigns/{id}/recipients', `/campaigns/${id}/recipients`);
    await call(api, 'get', '/campaigns/{id}/recipients', `/campaigns/${id}/recipients?filter=nope`);
    await call(api, 'get', '/campaigns/{id}/recipients.csv', `/campaigns/${id}/recipients.csv`);
    await call(api, 'get', '/campaigns/{id}/recipients.csv', `/campaigns/${MISSING}/recipients.csv`);
    const links = (await call(api, 'get', '/campaigns/{id}/links', `/campaigns/${id}/links`)).body.data.links;
    await call(api, 'get', '/campaigns/{id}/links', `/campaigns/${MISSING}/links`);
    await call(
      api,
      'get',
      '/campaigns/{id}/links/{link_id}/recipients',
      `/campaigns/${id}/links/${links[0]?.link_id ?? 1}/recipients`,
    );
    await call(api, 'get', '/campaigns/{id}/links/{link_id}/recipients', `/campaigns/${id}/links/1/recipients?page=0`);
    await call(api, 'get', '/campaigns/{id}/providers', `/campaigns/${id}/providers`);
    await call(api, 'get', '/campaigns/{id}/providers', `/campaigns/${MISSING}/providers`);
    await call(api, 'get', '/campaigns/{id}/clients', `/campaigns/${id}/clients`);
    await call(api, 'get', '/campaigns/{id}/clients', `/campaigns/${MISSING}/clients`);
    await call(api, 'post', '/campaigns/{id}/resend', `/campaigns/${id}/resend`, { subject: 'Did you miss it?' });
    await call(api, 'post', '/campaigns/{id}/resend', `/campaigns/${MISSING}/resend`, {});
    // an A/B test whose winner is picked by hand keeps sending (the rest waits): pause, resume, pick
    const { groupId: abGroup } = await seedAudience(s.db, accountId, 10, { domain: 'ab.test' });
    const ab = (
      await call(api, 'post', '/campaigns', '/campaigns', {
        name: 'A/B',
        subject: 'A',
        content_html: '<p>Hi</p>',
        group_ids: [abGroup],
        ab_test: { variants: [{}, { subject: 'B' }], test_percent: 20, winner_by: 'manual', wait_hours: 1 },
      })
    ).body.data;
    // local-time delivery is refused for an A/B test (422, no data)
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const local = { delivery: 'local_time', local_time: '09:00', date: tomorrow };
    assert.equal(
      (await call(api, 'post', '/campaigns/{id}/schedule', `/campaigns/${ab.id}/schedule`, local)).status,
      422,
    );
    await call(api, 'post', '/campaigns/{id}/schedule', `/campaigns/${ab.id}/schedule`, { delivery: 'instant' });
    await call(api, 'post', '/campaigns/{id}/pause', `/campaigns/${ab.id}/pause`);
    await call(api, 'post', '/campaigns/{id}/pause', `/campaigns/${ab.id}/pause`);
    await call(api, 'post', '/campaigns/{id}/resume', `/campaigns/${ab.id}/resume`);
    await call(api, 'post', '/campaigns/{id}/resume', `/campaigns/${ab.id}/resume`);
    await call(api, 'post', '/campaigns/{id}/ab-winner', `/campaigns/${ab.id}/ab-winner`, { variant: 9 });
    await call(api, 'post', '/campaigns/{id}/ab-winner', `/campaigns/${ab.id}/ab-winner`, { variant: 1 });
    await call(api, 'post', '/campaigns/{id}/ab-winner', `/campaigns/${ab.id}/ab-winner`, { variant: 1 });
    await call(api, 'post', '/campaigns/{id}/retry', `/campaigns/${id}/retry`, {});
    await call(api, 'post', '/campaigns/{id}/retry', `/campaigns/${id}/retry`, { states: ['sent'] });
    await call(api, 'post', '/campaigns/{id}/preview', `/campaigns/${id}/preview`, { email: 'c1@links.test' });
    await call(api, 'post', '/campaigns/{id}/preview', `/campaigns/${id}/preview`, { subscriber_id: 'x' });
    const copy = (await call(api, 'post', '/campaigns/{id}/duplicate', `/campaigns/${id}/duplicate`)).body.data;
    await call(api, 'post', '/campaigns/{id}/duplicate', `/campaigns/${MISSING}/duplicate`);
    await call(api, 'post', '/campaigns/{id}/test', `/campaigns/${copy.id}/test`, { emails: ['qa@example.com'] });
    await call(api, 'post', '/campaigns/{id}/test', `/campaigns/${copy.id}/test`, { emails: [] });
    await call(api, 'put', '/campaigns/{id}', `/campaigns/${copy.id}`, { subject: 'Second' });
    await call(api, 'put', '/campaigns/{id}', `/campaigns/${id}`, { subject: 'Too late' });
    const later = new Date(Date.now() + 86_400_000).toISOString();
    await call(api, 'post', '/campaigns/{id}/schedule', `/campaigns/${copy.id}/schedule`, {
      delivery: 'scheduled',
      scheduled_at: later,
    });
    await call(api, 'post', '/campaigns/{id}/schedule', `/campaigns/${copy.id}/schedule`, { delivery: 'later' });
    await call(api, 'post', '/campaigns/{id}/cancel', `/campaigns/${copy.id}/cancel`);
    await call(api, 'post', '/campaigns/{id}/cancel', `/campaigns/${MISSING}/cancel`);
    const draft = (await call(api, 'post', '/campaigns', '/campaigns', { name: 'Draft' })).body.data;
    await call(api, 'post', '/campaigns', '/campaigns', { name: '' });
    await call(api, 'delete', '/campaigns/{id}', `/campaigns/${draft.id}`);
    await call(api, 'delete', '/campaigns/{id}', `/campaigns/${draft.id}`);

    const outbox = (await call(api, 'get', '/outbox', '/outbox?per_page=5')).body.data.messages;
    await call(api, 'get', '/outbox', '/outbox?page=-1');
    await call(api, 'get', '/outbox/{id}', `/outbox/${outbox[0].id}`);
    await call(api, 'get', '/outbox/{id}', `/outbox/${MISSING}`);

    const plan = (await call(api, 'post', '/warmup', '/warmup', { domain: 'mail.example.com' })).body.data;
    await call(api, 'post', '/warmup', '/warmup', { domain: 'not a domain' });
    await call(api, 'get', '/warmup', '/warmup');
    await call(api, 'get', '/warmup/{id}', `/warmup/${plan.id}`);
    await call(api, 'get', '/warmup/{id}', `/warmup/${MISSING}`);
    await call(api, 'delete', '/warmup/{id}', `/warmup/${plan.id}`);
    await call(api, 'delete', '/warmup/{id}', `/warmup/${plan.id}`);

    const sd = '/sending-domains';
    const domain = (await call(api, 'post', sd, sd, { domain: 'news.example.com' })).body.data;
    await call(api, 'post', sd, sd, { domain: 'not a domain' });
    await call(api, 'post', sd, sd, { domain: 'news.example.com' });
    await call(api, 'get', sd, sd);
    await call(api, 'get', `${sd}/{id}`, `${sd}/${domain.id}`);
    await call(api, 'get', `${sd}/{id}`, `${sd}/${MISSING}`);
    const dkim = domain.dns_records.find((r: { purpose: string }) => r.purpose === 'dkim');
    dns.set(dkim.name, 'TXT', [dkim.value]);
    await call(api, 'post', `${sd}/{id}/verify`, `${sd}/${domain.id}/verify`, {});
    await call(api, 'post', `${sd}/{id}/verify`, `${sd}/${MISSING}/verify`, {});
    await call(api, 'delete', `${sd}/{id}`, `${sd}/${domain.id}`);
    await call(api, 'delete', `${sd}/{id}`, `${sd}/${domain.id}`);

    const sink = await startSink({ parse: false });
    const relayUrl = `smtp://mailer:secret@127.0.0.1:${sink.port}?starttls=false`;
    const relay = (
      await call(api, 'post', '/relays', '/relays', {
        name: 'Own relay',
        url: relayUrl,
        from_domains: ['news.example.com'],
      })
    ).body.data;
    await call(api, 'post', '/relays', '/relays', { name: 'Bad', url: 'https://relay.example.com', from_domains: [] });
    await call(api, 'post', '/relays', '/relays', {
      name: 'own relay',
      url: relayUrl,
      from_domains: ['x.example.com'],
    });
    await call(api, 'get', '/relays', '/relays');
    await call(api, 'post', '/relays/{id}/test', `/relays/${relay.id}/test`, { to: 'qa@example.com' });
    await call(api, 'post', '/relays/{id}/test', `/relays/${relay.id}/test`, { to: 'nobody' });
    await call(api, 'delete', '/relays/{id}', `/relays/${relay.id}`);
    await call(api, 'delete', '/relays/{id}', `/relays/${relay.id}`);
    await sink.close();
  });

  test('the account', async () => {
    const { api } = await s.restAccount();
    await call(api, 'get', '/account', '/account');
    await call(api, 'put', '/account', '/account', { postal_address: '1 Main Street\nSpringfield' });
    await call(api, 'put', '/account', '/account', { timezone: 'Nowhere/Else' });
  });

  test('a campaign refused by the checks before sending: 422 with the failed checks', async () => {
    const strict = await startServer({ after }, { SEND_CHECKS: 'block' });
    const { api, accountId } = await strict.restAccount();
    const group = await strict.db
      .insertInto('groups')
      .values({ account_id: accountId, name: 'Checked' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const draft = (
      await api.post('/campaigns', { name: 'C', subject: 'S', content_html: '<p>x</p>', group_ids: [group.id] })
    ).body.data;
    const res = await api.post(`/campaigns/${draft.id}/schedule`, { delivery: 'instant' });
    assert.equal(res.status, 422);
    conforms('post', `${REST_PREFIX}/campaigns/{id}/schedule`, res, { delivery: 'instant' });
  });

  test('suppressions', async () => {
    const { api } = await s.restAccount();
    const one = (await call(api, 'post', '/suppressions', '/suppressions', { email: 'gone@example.com' })).body.data;
    await call(api, 'post', '/suppressions', '/suppressions', { email: 'nope' });
    const csv = 'a@example.com\nb@example.com\n';
    await call(api, 'post', '/suppressions/import', '/suppressions/import', csv, { 'content-type': 'text/csv' });
    await call(api, 'post', '/suppressions/import', '/suppressions/import', { csv: 42 });
    await call(api, 'get', '/suppressions', '/suppressions');
    await call(api, 'get', '/suppressions', '/suppressions?page=zero');
    await call(api, 'get', '/suppressions/export', '/suppressions/export');
    await call(api, 'delete', '/suppressions/{id}', `/suppressions/${one.id}`);
    await call(api, 'delete', '/suppressions/{id}', `/suppressions/${one.id}`);
  });

  test('webhooks', async () => {
    const { api } = await s.restAccount();
    const hook = (
      await call(api, 'post', '/webhooks', '/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['subscriber.created'],
      })
    ).body.data;
    await call(api, 'post', '/webhooks', '/webhooks', { url: 'ftp://example.com', events: [] });
    await call(api, 'get', '/webhooks', '/webhooks');
    await call(api, 'get', '/webhooks', '/webhooks?per_page=none');
    await call(api, 'get', '/webhooks/{id}', `/webhooks/${hook.id}`);
    await call(api, 'get', '/webhooks/{id}', `/webhooks/${MISSING}`);
    await call(api, 'put', '/webhooks/{id}', `/webhooks/${hook.id}`, { name: 'Local' });
    await call(api, 'put', '/webhooks/{id}', `/webhooks/${hook.id}`, { events: ['nothing.happened'] });
    await call(api, 'post', '/webhooks/{id}/test', `/webhooks/${hook.id}/test`);
    await call(api, 'post', '/webhooks/{id}/test', `/webhooks/${MISSING}/test`);
    const deliveries = await call(api, 'get', '/webhooks/{id}/deliveries', `/webhooks/${hook.id}/deliveries`);
    await call(api, 'get', '/webhooks/{id}/deliveries', `/webhooks/${hook.id}/deliveries?status=odd`);
    const delivery = deliveries.body.data.deliveries[0];
    const replay = '/webhooks/{id}/deliveries/{deliveryId}/replay';
    await call(api, 'post', replay, `/webhooks/${hook.id}/deliveries/${delivery.id}/replay`);
    await call(api, 'post', replay, `/webhooks/${hook.id}/deliveries/${MISSING}/replay`);
    await call(api, 'delete', '/webhooks/{id}', `/webhooks/${hook.id}`);
    await call(api, 'delete', '/webhooks/{id}', `/webhooks/${hook.id}`);
  });

  test('automations', async () => {
    const { api } = await s.restAccount();
    const body = {
      name: 'Welcome',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'update_field', field: 'first_name', value: 'New' }],
    };
    const auto = (await call(api, 'post', '/automations', '/automations', body)).body.data;
    await call(api, 'post', '/automations', '/automations', { ...body, trigger: { type: 'joined_group' } });
    await call(api, 'get', '/automations', '/automations');
    await call(api, 'get', '/automations', '/automations?page=0');
    await call(api, 'get', '/automations/{id}', `/automations/${auto.id}`);
    await call(api, 'get', '/automations/{id}', `/automations/${MISSING}`);
    await call(api, 'put', '/automations/{id}', `/automations/${auto.id}`, { name: 'Hello' });
    await call(api, 'put', '/automations/{id}', `/automations/${auto.id}`, { steps: [] });
    await api.post('/subscribers', { email: 'auto@example.com' });
    await call(api, 'get', '/automations/{id}/activity', `/automations/${auto.id}/activity`);
    await call(api, 'get', '/automations/{id}/activity', `/automations/${auto.id}/activity?status=odd`);
    await call(api, 'post', '/automations/{id}/disable', `/automations/${auto.id}/disable`);
    await call(api, 'post', '/automations/{id}/disable', `/automations/${MISSING}/disable`);
    await call(api, 'post', '/automations/{id}/enable', `/automations/${auto.id}/enable`);
    await call(api, 'post', '/automations/{id}/enable', `/automations/${MISSING}/enable`);
    await call(api, 'delete', '/automations/{id}', `/automations/${auto.id}`);
    await call(api, 'delete', '/automations/{id}', `/automations/${auto.id}`);
  });

  test('every REST operation without a key: 401 in the envelope', async () => {
    const anonymous = restClient(s.url);
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item) as ('get' | 'post' | 'put' | 'delete')[]) {
        if (!path.startsWith(REST_PREFIX)) continue;
        const route = path.slice(REST_PREFIX.length);
        await call(anonymous, method, route, route.replace(/\{[^}]+\}/g, MISSING));
      }
  });

  test('a key over its requests per minute: 429 in the envelope', async () => {
    const limited = await startServer({ after }, { REST_RATE_LIMIT: 2 });
    const { key } = await limited.newAccount();
    const api = restClient(limited.url, key);
    for (let i = 0; i < 2; i++) assert.equal((await api.get('/test-auth')).status, 200);
    const res = await api.get('/subscribers/stats');
    assert.equal(res.status, 429);
    assert.ok(res.headers.get('retry-after'));
    conforms('get', `${REST_PREFIX}/subscribers/stats`, res);
  });

  test('every documented operation was answered with a success and an error that matched it', () => {
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item)) {
        if (!path.startsWith(REST_PREFIX)) continue;
        assert.ok(outcomes.has(`${method} ${path} success`), `no success replayed for ${method} ${path}`);
        assert.ok(outcomes.has(`${method} ${path} error`), `no error replayed for ${method} ${path}`);
      }
  });
});
