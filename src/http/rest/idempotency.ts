// Idempotency-Key on every REST POST: the body is hashed as it arrives (with the method and route), the
// key is claimed before the handler runs, and the answer is kept for the key's retries. A retry with the
// same key and the same request gets the first answer (header Idempotent-Replayed: true); the same key
// with another request is a 422; a retry while the first still runs, a 409. A 5xx is not kept, so the
// retry runs again.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as idempotencyKeys from '../../domain/accounts/idempotencyKeys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the request's Idempotency-Key; fingerprint is null until its body has been hashed */
    idempotency: { key: string; fingerprint: string | null; claimed: boolean } | null;
  }
}

/**
 * Claims the request's key under the hash of its body (with method and route), or answers for it: the
 * first answer again, a 422 for another request under the key, a 409 while the first still runs.
 * False when it answered (the handler must stop there). True, and nothing done, without a key.
 * `beforeAnswer` undoes what the route did before it could know (a staged upload); it runs before the
 * answer is sent, so a client that reads its answer never sees what was undone.
 */
export async function admit(
  app: FastifyInstance,
  req: FastifyRequest,
  reply: FastifyReply,
  bodyHash: string,
  beforeAnswer?: () => Promise<void>,
): Promise<boolean> {
  const idem = req.idempotency;
  if (!idem) return true;
  idem.fingerprint = createHash('sha256')
    .update(`${req.method} ${req.routeOptions.url ?? req.url}\n${bodyHash}`)
    .digest('hex');
  const claim = await idempotencyKeys.claim(app.db, req.key.accountId, idem.key, idem.fingerprint);
  if (claim.kind !== 'first') await beforeAnswer?.();
  switch (claim.kind) {
    case 'first':
      idem.claimed = true;
      return true;
    case 'replay':
      reply.code(claim.status).header('idempotent-replayed', 'true');
      if (claim.contentType) reply.type(claim.contentType);
      await reply.send(claim.response);
      return false;
    case 'mismatch':
      await reply.code(422).send({ success: false, error: 'Idempotency-Key was already used for a different request' });
      return false;
    case 'in-progress':
      await reply.code(409).send({
        success: false,
        error: 'A request with this Idempotency-Key is still being processed; retry later',
      });
      return false;
  }
}

export function idempotency(app: FastifyInstance): void {
  app.decorateRequest('idempotency', null);

  app.addHook('preParsing', async (req, _reply, payload) => {
    const header = req.headers['idempotency-key'];
    if (req.method !== 'POST' || header === undefined) return payload;
    const key = idempotencyKeys.checkKey(Array.isArray(header) ? (header[0] ?? '') : header);
    req.idempotency = { key, fingerprint: null, claimed: false };
    // an upload is read by its route, which names the request by the file's hash (passed to `admit`)
    if (/^multipart\//i.test(req.headers['content-type'] ?? '')) return payload;
    // the body is read here, once, so its hash is known before the handler; the route's own limit
    // still applies to what is passed on
    const limit = (req.routeOptions.bodyLimit ?? app.initialConfig.bodyLimit ?? 1024 * 1024) + 1;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of payload) {
      size += (chunk as Buffer).length;
      if (size > limit) throw Object.assign(new Error('Request body is too large'), { statusCode: 413 });
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    req.idempotency.fingerprint = createHash('sha256').update(body).digest('hex');
    const again = Readable.from(body) as Readable & { receivedEncodedLength: number };
    again.receivedEncodedLength = body.length;
    return again;
  });

  app.addHook('preHandler', async (req, reply) => {
    if (req.idempotency?.fingerprint) await admit(app, req, reply, req.idempotency.fingerprint);
  });

  app.addHook('onSend', async (req, reply, payload) => {
    const idem = req.idempotency;
    if (!idem?.claimed) return payload;
    idem.claimed = false;
    const { accountId } = req.key;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await idempotencyKeys.release(app.db, accountId, idem.key);
    } else {
      const contentType = reply.getHeader('content-type');
      await idempotencyKeys.remember(app.db, accountId, idem.key, {
        status: reply.statusCode,
        response: payload,
        contentType: typeof contentType === 'string' ? contentType : null,
      });
    }
    return payload;
  });
}
