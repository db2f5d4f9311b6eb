// Starts what receives mail that comes home: the inbound SMTP listener (INBOUND_SMTP_PORT) and the bounce
// mailbox poller (BOUNCE_IMAP_URL) when configured, both handing each message to the one domain step
// (feedback/inbound.ts receive); the loop over the accounts' own bounce mailboxes (feedback/mailboxes.ts);
// and the housekeeping that purges old inbound records. Started by src/main.ts for every role: any
// instance may receive, and a mailbox is polled by one instance at a time (its lease).
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import * as inbound from '../domain/feedback/inbound.ts';
import * as mailboxes from '../domain/feedback/mailboxes.ts';
import { startListener, type Listener } from '../mail/inbound/listener.ts';
import { startMailboxPoller, type MailboxPoller } from '../mail/inbound/mailbox.ts';
import { inboundStatus } from '../mail/inbound/status.ts';
import type { StopFn } from './context.ts';
import { startLoop } from './pollLoop.ts';

const HOUSEKEEPING_MS = 3_600_000;

export interface InboundContext {
  db: Db;
  config: Config;
  log: FastifyBaseLogger;
}

export async function start(ctx: InboundContext): Promise<StopFn> {
  const { db, config, log } = ctx;
  /** who holds this process's mailbox leases */
  const holder = randomUUID();
  let listener: Listener | undefined;
  if (config.INBOUND_SMTP_PORT !== undefined) {
    try {
      listener = await startListener({
        host: config.INBOUND_SMTP_HOST,
        port: config.INBOUND_SMTP_PORT,
        tlsCert: config.INBOUND_TLS_CERT,
        tlsKey: config.INBOUND_TLS_KEY,
        accepts: (address) => inbound.acceptsRecipient(config, address),
        receive: async (m) => {
          const handled = await inbound.receive(db, config, { via: 'smtp', ...m });
          for (const h of handled) log.info({ rcpt: h.rcpt, outcome: h.outcome, reason: h.reason }, 'inbound mail');
        },
        log,
      });
      inboundStatus.listener = listener.state;
    } catch (err) {
      // the rest of the instance runs on: a taken port must not take the API down with it
      inboundStatus.listenerError = String((err as Error)?.message ?? err);
      log.error({ err }, 'inbound SMTP listener could not start');
    }
  }
  let poller: MailboxPoller | undefined;
  if (config.BOUNCE_IMAP_URL) {
    const key = mailboxes.instanceMailboxKey(config.BOUNCE_IMAP_URL);
    poller = startMailboxPoller({
      url: config.BOUNCE_IMAP_URL,
      intervalMs: config.BOUNCE_IMAP_POLL_MS,
      claim: () => mailboxes.claim(db, key, holder),
      receive: async (m) => {
        const handled = await inbound.receive(db, config, { via: 'imap', ...m });
        for (const h of handled) log.info({ rcpt: h.rcpt, outcome: h.outcome, reason: h.reason }, 'inbound mail');
      },
      log,
    });
    inboundStatus.mailbox = poller.state;
  }
  const accountMailboxes = startLoop('account bounce mailboxes', config.BOUNCE_IMAP_POLL_MS, log, async () => {
    await mailboxes.pollAccountMailboxes(db, config, holder, log);
    return false;
  });
  // without a listener or an instance mailbox, only the accounts' own mailboxes bring mail: the first purge
  // waits an hour rather than writing at every start
  let skipFirst = config.INBOUND_SMTP_PORT === undefined && !config.BOUNCE_IMAP_URL;
  const housekeeping = startLoop('inbound housekeeping', HOUSEKEEPING_MS, log, async () => {
    if (skipFirst) return (skipFirst = false);
    const purged = await inbound.purge(db);
    if (purged > 0) log.info({ purged }, 'inbound mail records purged');
    return false;
  });
  return async () => {
    await housekeeping.stop();
    await accountMailboxes.stop();
    await poller?.stop();
    await listener?.close();
    inboundStatus.listener = null;
    inboundStatus.mailbox = null;
  };
}
