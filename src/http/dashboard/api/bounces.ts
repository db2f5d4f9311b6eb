// /app/api/bounces and /app/api/campaigns/:id/late-feedback: the bounce setup as Settings shows it (this
// instance's inbound listener and bounce mailbox, every live worker instance's as of its heartbeat, the
// return-path domain, what came home lately, how much mail could not be attributed), the account's own bounce mailbox (set or removed with 'manage', the
// URL write-only), and a campaign's late bounces and complaints for its report. The rest of the setup is
// the operator's configuration.
import type { FastifyInstance } from 'fastify';
import * as inbound from '../../../domain/feedback/inbound.ts';
import * as mailboxes from '../../../domain/feedback/mailboxes.ts';
import * as instances from '../../../domain/instances/instances.ts';
import { returnPathDomainFor } from '../../../domain/feedback/returnPath.ts';
import { inboundStatus } from '../../../mail/inbound/status.ts';
import { mailFromAddress } from '../../../mail/headers.ts';
import { jsonBody, ok, pathId } from '../../rest/envelope.ts';

export async function bounceRoutes(app: FastifyInstance) {
  app.get('/bounces', async (req) => {
    const accountId = req.member.accountId;
    const summary = await inbound.accountSummary(app.db, accountId);
    const { listener, listenerError, mailbox } = inboundStatus;
    const config = app.config;
    return ok({
      return_path_domain:
        (await returnPathDomainFor(app.db, config, accountId, mailFromAddress(config.MAIL_FROM))) ?? null,
      listener: {
        configured: config.INBOUND_SMTP_PORT !== undefined,
        listening: !!listener?.listening,
        address: listener?.address ?? null,
        tls: listener?.tls ?? false,
        error: listenerError,
        last_received_at: listener?.lastReceivedAt ?? null,
      },
      mailbox: {
        configured: !!config.BOUNCE_IMAP_URL,
        mailbox: mailbox?.mailbox ?? null,
        last_poll_at: mailbox?.lastPollAt ?? null,
        last_error: mailbox?.lastError ?? null,
        last_received_at: mailbox?.lastReceivedAt ?? null,
      },
      account_mailbox: await mailboxes.accountMailbox(app.db, accountId),
      // every live worker instance's listener and mailbox, as of its last heartbeat
      instances: (await instances.live(app.db, config.INSTANCE_TIMEOUT_MS)).map((i) => ({
        host: i.host,
        listener: i.inbound?.listener ?? null,
        mailbox: i.inbound?.mailbox ?? null,
      })),
      ...summary,
    });
  });

  app.put('/bounces/mailbox', { config: { permission: 'manage' } }, async (req) =>
    ok(
      await mailboxes.setAccountMailbox(app.db, app.config, req.member.accountId, jsonBody(req.body)),
      'Bounce mailbox saved',
    ),
  );

  app.get('/campaigns/:id/late-feedback', async (req) => {
    const id = pathId(req.params, 'Campaign not found');
    return ok({ items: await inbound.campaignFeedback(app.db, req.member.accountId, id) });
  });
}
