// The REST envelope (spec "Response envelope"): {success, data?, message?, error?}, and request parsing
// that turns zod failures into the domain's Validation error (→ 400 with the field map).
import { z } from 'zod';
import { NotFound, Validation } from '../../domain/errors.ts';
import { parseInput } from '../../domain/validation.ts';

export function ok<T>(data: T, message?: string) {
  return message === undefined ? { success: true as const, data } : { success: true as const, message, data };
}

/** Parses a request body: no body reads as {}; any JSON that is not an object (null, an array, a string) is a 400. */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input === undefined) return parseInput(schema, {});
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw Validation.field('body', 'Request body must be a JSON object');
  return parseInput(schema, input);
}

export function pick<T extends object, K extends keyof T>(obj: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = obj[k];
  return out;
}

/** A path id that is not a UUID names nothing: 404, like any other unknown id (and never reaches SQL). */
export function pathId(params: unknown, notFound: string, name = 'id'): string {
  const id = (params as Record<string, unknown> | undefined)?.[name];
  if (typeof id !== 'string' || !z.guid().safeParse(id).success) throw new NotFound(notFound);
  return id.toLowerCase();
}
