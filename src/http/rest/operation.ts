// One declaration per REST operation: method, path, scope, the schemas of its input and answer, the words
// the reference shows, and the handler. The REST plugin registers the routes from these declarations
// (restResource) and the OpenAPI document (../openapi/document.ts) is built from the same objects, so a
// route and its documentation cannot disagree. The query and body schemas are the domain's own, the ones
// the domain function the handler calls parses with; the handler passes its input through unparsed.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Scope } from '../../domain/accounts/scopes.ts';
import type { Db } from '../../db/client.ts';
import { DeletedWithId, LimitExceeded } from '../openapi/envelopes.ts';
import { deleted, pathId } from './envelope.ts';

export const REST_PREFIX = '/api/v1/external';

export type Method = 'get' | 'post' | 'put' | 'delete';

/** An error an operation answers beyond the ones every operation of its kind has (see document.ts). */
export interface ExtraError {
  status: 400 | 403 | 404 | 409 | 413 | 415 | 422;
  description: string;
  /** the envelope with details (e.g. the plan limit's counts); the plain error envelope when absent */
  schema?: z.ZodType;
}

/** What a handler is given: the face's Fastify instance (db, config, queue, transport), the request and the reply. */
export interface Call {
  app: FastifyInstance;
  req: FastifyRequest;
  reply: FastifyReply;
}

export interface Operation {
  method: Method;
  /** OpenAPI style, under REST_PREFIX for REST operations: /subscribers/{id} */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** the scope the key needs; undefined: any valid key; 'public': no key at all */
  scope?: Scope | 'public';
  /** true for the spec's own endpoints, false for Mailgrove's additions */
  spec: boolean;
  /** what each path parameter names (UUIDs unless listed in `textParams`) */
  params?: Record<string, string>;
  textParams?: string[];
  query?: z.ZodObject;
  /** a JSON body */
  body?: z.ZodType;
  /** a body of another kind: a CSV upload (multipart) or a CSV text */
  upload?: 'multipart' | 'csv';
  success: { status: 200 | 201 | 202; description: string; schema?: z.ZodType; csv?: boolean };
  /** 503 of the health checks */
  unavailable?: z.ZodType;
  errors?: ExtraError[];
  /** 'replace': refused characters in the input become U+FFFD instead of a 400 (textGuard.ts) */
  textRule?: 'replace';
  handler(call: Call): Promise<unknown>;
}

/** The operations of one resource, and what its plugin sets up before them (a body parser, multipart). */
export interface Resource {
  operations: Operation[];
  setup?(app: FastifyInstance): Promise<void>;
}

/** Registers an operation's route: `{id}` becomes Fastify's `:id`, the scope goes in the route's config. */
export function route(app: FastifyInstance, op: Operation): void {
  const scope = op.scope === 'public' ? undefined : op.scope;
  app.route({
    method: op.method.toUpperCase() as Uppercase<Method>,
    url: op.path.replace(/\{([A-Za-z_]+)\}/g, ':$1'),
    config: { ...(scope && { scope }), ...(op.textRule && { textRule: op.textRule }) },
    handler: (req, reply) => op.handler({ app, req, reply }),
  });
}

/** A resource as a Fastify plugin: its set-up, then one route per operation, in order. */
export function restResource(resource: Resource): (app: FastifyInstance) => Promise<void> {
  return async (app) => {
    await resource.setup?.(app);
    for (const op of resource.operations) route(app, op);
  };
}

/** The path parameter of a UUID id, described. */
export const ID = (what: string) => ({ id: `The ${what}'s id (UUID).` });

export const conflict = (description: string): ExtraError => ({ status: 409, description });
export const planLimit: ExtraError = {
  status: 403,
  description: "The plan's subscriber limit would be passed (data: the counts).",
  schema: LimitExceeded,
};

/**
 * A DELETE of one of our own resources by its path id: an unknown or malformed id is a 404 with
 * `notFound`; success answers `{id, deleted: true}` and the message '<thing> deleted'.
 */
export function deleteOperation(
  o: Omit<Operation, 'method' | 'spec' | 'success' | 'handler'> & {
    thing: string;
    notFound: string;
    /** the success answer's description in the reference; 'Deleted' unless said */
    removed?: string;
    /** `app`: for what a removal tells beside the database (the transport forgets a deleted relay) */
    remove(db: Db, accountId: string, id: string, app: FastifyInstance): Promise<unknown>;
  },
): Operation {
  const { thing, notFound, removed = 'Deleted', remove, ...declared } = o;
  return {
    method: 'delete',
    spec: false,
    ...declared,
    success: { status: 200, description: removed, schema: DeletedWithId },
    handler: async ({ app, req }) => {
      const id = pathId(req.params, notFound);
      await remove(app.db, req.key.accountId, id, app);
      return deleted(id, thing);
    },
  };
}
