// The OpenAPI 3.1 document of the REST API, generated from the operations the routes are registered from
// (../rest/operation.ts; the health checks' in ../health.ts): every schema in it is z.toJSONSchema of the
// zod schema the domain parses the route's input with (queries and bodies, as input) or the route answers
// with (as output), so the document cannot drift from the code. Shared objects become components through a zod
// registry; errors are added from what each operation has. Built once per process and served by ./routes.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ChecksFailed,
  Deleted,
  DeletedWithId,
  ErrorEnvelope,
  ForbiddenScope,
  LimitExceeded,
  Pagination,
  RateLimited,
  Unauthorized,
  ValidationError,
} from './envelopes.ts';
import { HEALTH_OPERATIONS } from '../health.ts';
import { REST_PREFIX, type Operation } from '../rest/operation.ts';
import { REST_OPERATIONS } from '../rest/routes.ts';
import * as r from './responses.ts';

type Json = Record<string, unknown>;

/** Every operation the document shows, with its full path: the health checks, then the REST API. */
const OPERATIONS: Operation[] = [
  ...HEALTH_OPERATIONS,
  ...REST_OPERATIONS.map((op) => ({ ...op, path: REST_PREFIX + op.path })),
];

/** Real requests and answers of each operation, recorded by test/http/openapi/document.test.ts (OPENAPI_EXAMPLES=write). */
export interface RecordedExample {
  request?: unknown;
  responses: Record<string, unknown>;
}
export const EXAMPLES_FILE = join(import.meta.dirname, 'examples.json');

function recordedExamples(): Record<string, RecordedExample> {
  return existsSync(EXAMPLES_FILE) ? JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) : {};
}

/** Schemas shown once, under components, and referenced wherever they appear. */
const COMPONENTS: Record<string, z.ZodType> = {
  Error: ErrorEnvelope,
  ValidationError,
  Unauthorized,
  ForbiddenScope,
  LimitExceeded,
  ChecksFailed,
  RateLimited,
  Deleted,
  DeletedWithId,
  Pagination,
  SubscriberListItem: r.SubscriberListItem,
  SubscriberCreated: r.SubscriberCreated,
  SubscriberFull: r.SubscriberFull,
  SubscriberUpdated: r.SubscriberUpdated,
  SubscriberStats: r.SubscriberStats,
  Field: r.Field,
  ImportJob: r.ImportJob,
  Group: r.Group,
  Segment: r.Segment,
  Form: r.Form,
  FormWithEmbed: r.FormWithEmbed,
  Campaign: r.Campaign,
  CampaignRecipient: r.CampaignRecipient,
  Webhook: r.Webhook,
  WebhookWithSecret: r.WebhookWithSecret,
  WebhookDelivery: r.Delivery,
  Automation: r.Automation,
  AutomationRun: r.AutomationRun,
  WarmupPlan: r.WarmupPlan,
  Suppression: r.Suppression,
};

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

const UNAUTHORIZED_EXAMPLE = {
  success: false,
  error: 'Unauthorized',
  message: 'Missing or malformed Authorization header (expected: Bearer <API_KEY>)',
};
const RATE_LIMITED_EXAMPLE = { success: false, error: 'Too many requests', data: { retry_after: 42 } };

/** The JSON Schema of every registered schema, as components; `$id` and `$schema` dropped (OpenAPI sets the dialect). */
function componentsOf(registry: z.core.$ZodRegistry<{ id: string }>, io: 'input' | 'output'): Record<string, Json> {
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  // a recursive schema (an automation's steps hold steps) is emitted once under __shared: make it a component
  const shared = (schemas.__shared?.$defs ?? {}) as Record<string, Json>;
  delete schemas.__shared;
  const names = Object.fromEntries(
    Object.keys(shared).map((k, i) => [k, `${io === 'input' ? 'Input' : 'Output'}Recursive${i + 1}`]),
  );
  for (const [k, s] of Object.entries(shared)) schemas[names[k]!] = s;
  const rewritten = JSON.stringify(schemas).replace(
    /"#\/components\/schemas\/__shared#\/\$defs\/([^"]+)"/g,
    (_, k: string) => JSON.stringify(`#/components/schemas/${names[k]}`),
  );
  const out = JSON.parse(rewritten) as Record<string, Json>;
  for (const s of Object.values(out)) {
    delete s.$id;
    delete s.$schema;
  }
  return out;
}

/** Query parameters from a query schema: one per property, as the route reads them from the query string. */
function queryParameters(query: z.ZodObject): Json[] {
  const schema = z.toJSONSchema(query, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Json;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, s]) => {
    const { description, ...rest } = s;
    return {
      name,
      in: 'query',
      required: required.has(name),
      ...(description !== undefined && { description }),
      schema: rest,
    };
  });
}

function response(description: string, schema: Json, example?: unknown): Json {
  return {
    description,
    content: { 'application/json': { schema, ...(example !== undefined && { example }) } },
  };
}

export interface DocumentOptions {
  version: string;
}

export function buildDocument(opts: DocumentOptions): Json {
  const examples = recordedExamples();
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(COMPONENTS)) outputs.add(schema, { id });
  const successId = new Map<Operation, string>();
  for (const op of OPERATIONS) {
    if (op.body) inputs.add(op.body, { id: inputs.has(op.body) ? inputs.get(op.body)!.id : `${op.operationId}Body` });
    const s = op.success.schema;
    if (s) {
      if (!outputs.has(s)) outputs.add(s, { id: `${op.operationId}Response` });
      successId.set(op, outputs.get(s)!.id);
    }
    if (op.unavailable && !outputs.has(op.unavailable))
      outputs.add(op.unavailable, { id: `${op.operationId}Unavailable` });
  }
  const schemas = { ...componentsOf(outputs, 'output'), ...componentsOf(inputs, 'input') };

  const paths: Record<string, Record<string, Json>> = {};
  for (const op of OPERATIONS) {
    const recorded = examples[op.operationId];
    const example = (status: number) => recorded?.responses[String(status)];
    const parameters: Json[] = [];
    for (const [name, description] of Object.entries(op.params ?? {}))
      parameters.push({
        name,
        in: 'path',
        required: true,
        description,
        schema:
          op.textParams?.includes(name) || op.operationId === 'getImport'
            ? { type: 'string' }
            : { type: 'string', format: 'uuid' },
      });
    if (op.query) parameters.push(...queryParameters(op.query));
    if (op.method === 'post' && op.scope !== 'public')
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'A retry with the same key and request gets the first answer again (header Idempotent-Replayed: true) for 24 hours.',
        schema: { type: 'string', maxLength: 255 },
      });

    const responses: Record<string, Json> = {};
    const { success } = op;
    responses[success.status] = success.csv
      ? {
          description: success.description,
          content: {
            'text/csv': { schema: { type: 'string' }, example: example(success.status) ?? 'email,first_name\n' },
          },
        }
      : response(success.description, ref(successId.get(op)!), example(success.status));

    const add = (status: number, description: string, schema: Json, fallback?: unknown) => {
      const have = responses[status];
      if (have) {
        have.description = `${have.description} ${description}`;
        const media = (have.content as Record<string, Json>)['application/json']!;
        const prior = media.schema as Json;
        const anyOf = (prior.anyOf as Json[] | undefined) ?? [prior];
        if (!anyOf.some((s) => s.$ref === schema.$ref)) media.schema = { anyOf: [...anyOf, schema] };
        return;
      }
      responses[status] = response(description, schema, example(status) ?? fallback);
    };

    if (op.query || op.body || op.upload)
      add(400, 'Validation failed: the field map in data.', ref('ValidationError'), {
        success: false,
        error: 'email: A valid email address is required',
        data: { email: ['A valid email address is required'] },
      });
    if (op.scope !== 'public')
      add(401, 'The key is missing, unknown, revoked or expired.', ref('Unauthorized'), UNAUTHORIZED_EXAMPLE);
    if (op.scope && op.scope !== 'public')
      add(403, `The key lacks the scope ${op.scope}.`, ref('ForbiddenScope'), {
        success: false,
        error: 'Forbidden',
        message: `API key lacks the required permission: ${op.scope}`,
      });
    if (op.params) add(404, 'No such id in this account.', ref('Error'), { success: false, error: 'Not found' });
    for (const e of op.errors ?? [])
      add(e.status, e.description, ref(Object.entries(COMPONENTS).find(([, c]) => c === e.schema)?.[0] ?? 'Error'), {
        success: false,
        error: e.description,
      });
    if (op.method === 'post' && op.scope !== 'public') {
      add(409, 'A request with this Idempotency-Key is still being processed.', ref('Error'), {
        success: false,
        error: 'A request with this Idempotency-Key is still being processed; retry later',
      });
      add(422, 'The Idempotency-Key was already used for a different request.', ref('Error'), {
        success: false,
        error: 'Idempotency-Key was already used for a different request',
      });
    }
    if (op.body) {
      add(413, 'The body is larger than 1 MB.', ref('Error'), { success: false, error: 'Request body is too large' });
      add(415, 'The body is not JSON.', ref('Error'), { success: false, error: 'Unsupported content type' });
    }
    if (op.scope !== 'public')
      add(
        429,
        "The key's requests per minute are spent (Retry-After header).",
        ref('RateLimited'),
        RATE_LIMITED_EXAMPLE,
      );
    if (op.unavailable)
      responses[503] = response(
        'Not healthy',
        ref(outputs.get(op.unavailable)!.id),
        example(503) ??
          (op.unavailable === r.Down
            ? { status: 'down', message: 'Database is not responding' }
            : { status: 'not ready', checks: { database: 'ok', migrations: '1 pending', queue: 'ok' } }),
      );

    const requestBody = op.body
      ? {
          required: op.method === 'post',
          content: {
            'application/json': {
              schema: ref(inputs.get(op.body)!.id),
              ...(recorded?.request !== undefined && { example: recorded.request }),
            },
          },
        }
      : op.upload === 'multipart'
        ? {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['file'],
                  properties: {
                    file: {
                      type: 'string',
                      contentMediaType: 'text/csv',
                      description: 'The CSV, with a header row and an email column.',
                    },
                    group_ids: {
                      type: 'string',
                      description: 'A JSON array of group ids every imported subscriber joins.',
                    },
                  },
                },
              },
            },
          }
        : op.upload === 'csv'
          ? {
              required: true,
              content: {
                'text/csv': { schema: { type: 'string' }, example: 'email\na@example.com\nb@example.com\n' },
                'application/json': {
                  schema: { type: 'object', required: ['csv'], properties: { csv: { type: 'string' } } },
                },
              },
            }
          : undefined;

    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: [
        op.scope === 'public' ? 'No key.' : op.scope ? `Scope: \`${op.scope}\`.` : 'Any valid key.',
        op.description,
        op.spec ? undefined : '*Mailgrove addition beyond the service spec.*',
      ]
        .filter(Boolean)
        .join('\n\n'),
      ...(op.scope !== 'public' && op.scope && { 'x-scope': op.scope }),
      security: op.scope === 'public' ? [] : [{ bearer: [] }],
      ...(parameters.length > 0 && { parameters }),
      ...(requestBody && { requestBody }),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Mailgrove REST API',
      version: opts.version,
      description: [
        `The REST API under \`${REST_PREFIX}\`, with the public health checks. Every request but the health checks carries \`Authorization: Bearer <API_KEY>\`; each operation names the scope it needs (also as \`x-scope\`).`,
        'Answers use the envelope `{success, data?, message?, error?}`; lists carry `pagination`. Validation failures are 400 with a field map in `data`.',
        'Generated from the zod schemas the routes validate with; see docs/api.md.',
      ].join('\n\n'),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [...new Set(OPERATIONS.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key of the account: a 10-character prefix and 32 hexadecimal characters.',
        },
      },
    },
  };
}
