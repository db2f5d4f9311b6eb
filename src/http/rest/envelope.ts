// The REST envelope (spec "Response envelope"): {success, data?, message?, error?}, request parsing that
// turns zod failures into the domain's Validation error (→ 400 with the field map), and the body rules the
// REST and admin faces share (JSON only, text PostgreSQL can store).
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFound, Validation } from '../../domain/errors.ts';
import type { Page } from '../../domain/paging.ts';
import { parseInput } from '../../domain/validation.ts';

export function ok<T>(data: T, message?: string) {
  return message === undefined ? { success: true as const, data } : { success: true as const, message, data };
}

/** A Page as REST shows it (spec "Pagination"): `{ current_page, total_pages, total_count, per_page }`. */
export function pagination(p: Page<unknown>) {
  return {
    current_page: p.page,
    total_pages: Math.ceil(p.total / p.per_page),
    total_count: p.total,
    per_page: p.per_page,
  };
}

/**
 * What a list answers on our own faces (the dashboard API, the admin API, the REST routes beyond the
 * spec): the items under the resource's plural name and the spec's pagination object, in the envelope.
 */
export function listed<K extends string, T>(name: K, p: Page<T>) {
  return ok({ [name]: p.items, pagination: pagination(p) } as { [k in K]: T[] } & {
    pagination: ReturnType<typeof pagination>;
  });
}

/** A list the domain does not page, as one page holding all of it (an empty one has no page, like any list). */
export function wholeList<T>(items: T[]): Page<T> {
  return { items, page: 1, per_page: Math.max(1, items.length), total: items.length };
}

/**
 * What a delete answers on our own faces: which one went, and a line saying so (the spec's
 * DELETE /subscribers/{id} keeps its own answer).
 */
export function deleted(id: string, thing: string, verb = 'deleted') {
  return ok({ id, deleted: true as const }, `${thing} ${verb}`);
}

/**
 * A JSON request body as the domain function that parses it receives it: no body reads as {}; any JSON
 * that is not an object (null, an array, a string) is a 400 here, before the domain's schema sees it.
 */
export function jsonBody(input: unknown): object {
  if (input === undefined) return {};
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw Validation.field('body', 'Request body must be a JSON object');
  return input;
}

/** Parses a JSON body with a schema, for the few domain functions that take their input typed. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  return parseInput(schema, jsonBody(input));
}

/** A path id that is not a UUID names nothing: 404, like any other unknown id (and never reaches SQL). */
const Guid = z.guid();

export function pathId(params: unknown, notFound: string, name = 'id'): string {
  const id = (params as Record<string, unknown> | undefined)?.[name];
  if (typeof id !== 'string' || !Guid.safeParse(id).success) throw new NotFound(notFound);
  return id.toLowerCase();
}

/**
 * For the REST and admin faces (each an encapsulated plugin): bodies are JSON only (spec "Request bodies
 * are JSON"), so the form parser the public pages need and Fastify's text/plain parser stay out and any
 * other type is a 415, not a half-parsed 400. (The text rule runs at the root for every face: textGuard.ts.)
 */
export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeContentTypeParser(['text/plain', 'application/x-www-form-urlencoded']);
}
