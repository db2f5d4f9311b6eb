// The REST envelopes as zod schemas, for the OpenAPI document (spec "Response envelope" and "Errors"): what
// ok() and pagination() in ../rest/envelope.ts write on success, and what ../rest/errors.ts, the key guard
// in ../rest/index.ts and ../rest/idempotency.ts write on failure. Objects stay open, as in ../mcp/outputs.ts.
import { z } from 'zod';
import { SendChecks } from '../mcp/outputs.ts';

/** `{success: true, data}`: ok(data). */
export function okOf<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data });
}

/** `{success: true, message, data}`: ok(data, message). */
export function okWithMessage<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

/** `{success: true, message}`: what the spec's DELETE /subscribers/{id} answers. */
export const Deleted = z.object({ success: z.literal(true), message: z.string() });

/** `{success: true, message: '<Thing> deleted', data: {id, deleted: true}}`: every other delete. */
export const DeletedWithId = okWithMessage(z.object({ id: z.string(), deleted: z.literal(true) }));

/** A Page as REST shows it (spec "Pagination object"), written by pagination() in ../rest/envelope.ts. */
export const Pagination = z.object({
  current_page: z.number().int().min(1),
  total_pages: z.number().int().min(0),
  total_count: z.number().int().min(0),
  per_page: z.number().int().min(1).max(100),
});

/** `{success: true, data: {<items>: [...], pagination}}`: every paged list. */
export function pageOf<T extends z.ZodType>(items: string, item: T) {
  return okOf(z.object({ [items]: z.array(item), pagination: Pagination }));
}

/** Every failure: `{success: false, error, message?, data?}`. */
export const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.string().describe('What went wrong, in words.'),
  message: z.string().optional().describe('More detail, where there is some.'),
  data: z.record(z.string(), z.unknown()).optional().describe('Details: the field map, counts.'),
});

/** 400: a field map (field → messages) for a body or query that fails its schema; no data for a malformed body. */
export const ValidationError = ErrorEnvelope.extend({
  data: z
    .record(z.string(), z.array(z.string()))
    .optional()
    .describe('Each refused field (dot-separated path; `_` for the whole body) and its messages.'),
});

/** 401 from the key guard: a missing, malformed, unknown, revoked or expired key. */
export const Unauthorized = ErrorEnvelope.extend({ error: z.literal('Unauthorized'), message: z.string() });

/** 403 when the key lacks the route's scope: `message` names the scope. */
export const ForbiddenScope = ErrorEnvelope.extend({
  error: z.literal('Forbidden'),
  message: z.string().describe('API key lacks the required permission: <scope>'),
});

/** 403 when the plan's subscriber limit would be passed (create; import with import_count). */
export const LimitExceeded = ErrorEnvelope.extend({
  data: z.object({
    current_count: z.number().int(),
    limit: z.number().int(),
    import_count: z.number().int().optional(),
  }),
});

/** 422 when a campaign fails a blocking check before sending: the failed checks, each with what to do. */
export const ChecksFailed = ErrorEnvelope.extend({
  data: z.object({ checks: SendChecks.shape.checks }),
});

/** 429 from the key guard: the key's requests per minute are spent; Retry-After says the same in a header. */
export const RateLimited = ErrorEnvelope.extend({
  error: z.literal('Too many requests'),
  data: z.object({ retry_after: z.number().int().min(0).describe('Seconds until the key may retry.') }),
});
