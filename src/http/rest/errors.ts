// The one mapping from errors to REST responses, installed inside the REST and admin plugins.
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, type ErrorKind } from '../../domain/errors.ts';
import { fromStorageError } from '../../domain/storageErrors.ts';

const STATUS = {
  not_found: 404,
  validation: 400,
  conflict: 409,
  limit_exceeded: 403,
  state_conflict: 409,
  forbidden: 403,
  unprocessable: 422,
} satisfies Record<ErrorKind, number>;

export function restError(err: FastifyError | DomainError, req: FastifyRequest, reply: FastifyReply) {
  if (!(err instanceof DomainError)) {
    const refused = fromStorageError(err);
    if (refused) {
      req.log.info({ code: (err as { code?: string }).code, reqId: req.id }, 'input refused by the database');
      err = refused;
    }
  }
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

/**
 * Fastify's router errors, which never reach an error handler: a path with broken percent-encoding
 * ('/subscribers/%FF') is a 400, and a path parameter longer than any id ('/subscribers/000…') names
 * nothing, so it is a 404 like any other unknown id. Both in the envelope; installed as frameworkErrors.
 */
export function frameworkError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply) {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') return reply.code(404).send({ success: false, error: 'Not found' });
  return reply.code(400).send({ success: false, error: 'Malformed URL' });
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over 16 KB, broken HTTP): the
 * same envelope, written straight to the socket as Fastify's default handler does. Installed as clientErrorHandler.
 */
export function clientError(err: NodeJS.ErrnoException, socket: Duplex) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text, error] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timeout']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ success: false, error });
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}
