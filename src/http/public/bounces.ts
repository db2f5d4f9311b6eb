// POST /hooks/bounces/{provider}/{secret}: bounce and complaint webhooks of Amazon SES (via
// SNS), SendGrid, Postmark and a generic JSON shape. The account is named by its bounce_secret in the URL
// (an unknown secret or provider is a plain 404). An SNS SubscriptionConfirmation is recorded and logged
// for the operator to confirm by hand — we never fetch a URL taken from a request body.
import type { FastifyInstance } from 'fastify';
import * as bounces from '../../domain/feedback/bounces.ts';
import { DomainError, NotFound } from '../../domain/errors.ts';
import { parse, PROVIDERS, type Provider } from '../../domain/feedback/bounceFormats.ts';
import { replaceUnstorableIn } from '../../domain/storable.ts';
import { restError } from '../rest/errors.ts';
import { pathParam } from '../params.ts';

export async function bounceHooks(app: FastifyInstance) {
  // SNS posts JSON with Content-Type text/plain; take any body as text and parse it per provider
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err, req, reply) => restError(err as DomainError, req, reply));

  // a provider's report is kept whatever it holds: refused characters become U+FFFD rather than a 400
  // that would make the provider retry the whole batch forever
  const config = { textRule: 'replace' as const };
  app.post('/hooks/bounces/:provider/:secret', { bodyLimit: 5 * 1024 * 1024, config }, async (req) => {
    const [provider, secret] = [pathParam(req.params, 'provider'), pathParam(req.params, 'secret')];
    if (!(PROVIDERS as readonly string[]).includes(provider)) throw new NotFound('Not found');
    const accountId = await bounces.accountForSecret(app.db, secret);
    const parsed = parse(provider as Provider, req.body);
    // a JSON body was cleaned by the text rule's hook already; a text body (SNS) is only JSON once parsed
    if (typeof req.body === 'string') replaceUnstorableIn(parsed);
    if (parsed.confirmation) {
      await bounces.recordConfirmation(app.db, accountId, provider as Provider, parsed.confirmation);
      req.log.warn(
        { accountId, topicArn: parsed.confirmation.topic_arn, subscribeUrl: parsed.confirmation.subscribe_url },
        'Amazon SNS subscription confirmation received: visit the SubscribeURL to confirm it',
      );
      return {
        success: true,
        message: 'Subscription confirmation recorded; an operator must visit the SubscribeURL to confirm it',
      };
    }
    const opts = { softBounceLimit: app.config.SOFT_BOUNCE_LIMIT };
    return { success: true, data: await bounces.apply(app.db, accountId, provider as Provider, parsed.reports, opts) };
  });
}
