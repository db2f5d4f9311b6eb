// The one mapping from errors to REST responses, installed inside the REST and admin plugins.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorKind } from '../../domain/errors.ts';

const STATUS = {
  not_found: 404,
  validation: 400,
  conflict: 409,
  limit_exceeded: 403,
  state_conflict: 409,
  forbidden: 403,
} satisfies Record<ErrorKind, number>;

export function restError(err: FastifyError | DomainError, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof DomainError) {
    const body: Record<string, unknown> = { success: false, error: err.message };
    if (err.detail) body.message = err.detail;
    if (err.data) body.data = err.data;
    return reply.code(STATUS[err.kind]).send(body);
  }
  return reply.code(httpStatusOf(err)).send(httpErrorBody(err, req));
}

/** Fastify's own 4xx (bad JSON, body too large, wrong content type) keep their status; the rest is a logged 500. */
export function httpStatusOf(err: FastifyError): number {
  return err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
}

export function httpErrorBody(err: FastifyError, req: FastifyRequest) {
  const status = httpStatusOf(err);
  if (status < 500) return { success: false, error: clientMessage(err) };
  req.log.error({ err, reqId: req.id }, 'unhandled error');
  return { success: false, error: 'Internal server error', message: `Request id ${req.id}` };
}

function clientMessage(err: FastifyError): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Malformed JSON body';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type';
    default:
      return err.message;
  }
}
