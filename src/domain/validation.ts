// Turns zod failures into the domain's Validation error (field name → messages), for every face alike.
import type { z } from 'zod';
import { Validation, type FieldErrors } from './errors.ts';

export function toFieldErrors(error: z.ZodError, prefix = ''): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String).join('.');
    const key = prefix + path || '_';
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}

/** A zod failure as a Validation: every field's messages, and the first problem in words. */
export function validationOf(error: z.ZodError, prefix = ''): Validation {
  return Validation.of(toFieldErrors(error, prefix));
}

/** schema.parse that throws Validation instead of ZodError. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationOf(result.error, prefix);
}
