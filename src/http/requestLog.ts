// One log line per request: who (account, key id — never the key), what (route pattern, never the raw
// URL: hook and unsubscribe URLs carry secrets and tokens in their path), how it ended and how long it
// took. Fastify's own two lines per request ("incoming request", "request completed") are off.
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/** Fastify's request lines off (requestLog writes ours); its error lines stay. */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}

export function requestLog(app: FastifyInstance): void {
  app.decorateRequest('key', null as any);
  app.addHook('onResponse', async (req, reply) => {
    const member = (req as { member?: { accountId: string; userId: string } }).member;
    req.log.info(
      {
        method: req.method,
        route: req.routeOptions.url ?? null,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        account_id: req.key?.accountId ?? member?.accountId ?? null,
        key_id: req.key?.keyId ?? null,
        user_id: member?.userId ?? null,
      },
      'request',
    );
  });
}
