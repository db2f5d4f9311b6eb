// Reports delivered to the inbound listener over real SMTP, as a relay or mailbox provider would send them,
// and the sent emails they are about.
import { randomUUID } from 'node:crypto';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { Db } from '../../src/db/client.ts';
import { inboundStatus } from '../../src/mail/inbound/status.ts';
import { verpAddress } from '../../src/mail/verp.ts';
import { groupOf, newAccount } from './domain.ts';

/** The port of this process's inbound listener (started with INBOUND_SMTP_PORT: 0). */
export function inboundPort(): number {
  return Number(inboundStatus.listener!.address!.split(':').pop());
}

/** One message over SMTP to the listener: the final reply, or the refusal as an error. */
export async function deliver(port: number, from: string, to: string[], raw: string | Buffer): Promise<string> {
  const conn = new SMTPConnection({ host: '127.0.0.1', port, ignoreTLS: true, logger: false });
  await new Promise<void>((resolve, reject) => {
    conn.once('error', reject);
    conn.connect(() => resolve());
  });
  try {
    return await new Promise<string>((resolve, reject) =>
      conn.send({ from, to }, raw, (err, info) =>
        err ? reject(err) : resolve((info as { response: string }).response),
      ),
    );
  } finally {
    conn.quit();
  }
}

/** An RFC 3464 delivery status notification about one recipient, quoting the headers of our message. */
export function dsn(o: {
  to: string;
  rcpt: string;
  status: string;
  diagnostic: string;
  messageId: string;
  action?: string;
}): string {
  return [
    'From: Mail Delivery System <MAILER-DAEMON@relay.example.net>',
    `To: ${o.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B1"',
    '',
    '--B1',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host relay.example.net. Your message could not be delivered.',
    '',
    '--B1',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; relay.example.net',
    'Arrival-Date: Sun, 6 Dec 2026 04:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${o.rcpt}`,
    `Original-Recipient: rfc822;${o.rcpt}`,
    `Action: ${o.action ?? 'failed'}`,
    `Status: ${o.status}`,
    'Remote-MTA: dns; mx.example.com',
    `Diagnostic-Code: smtp; ${o.diagnostic}`,
    '',
    '--B1',
    'Content-Type: text/rfc822-headers',
    '',
    'From: news@example.com',
    `To: ${o.rcpt}`,
    'Subject: Hello',
    `Message-ID: <${o.messageId}>`,
    '',
    '--B1--',
    '',
  ].join('\r\n');
}

/** An automation email sent to a new subscriber of a new account (or of `accountId`), as the send records it. */
export async function automationEmail(db: Db, email: string, accountId?: string) {
  accountId ??= await newAccount(db, `A ${randomUUID()}`);
  await groupOf(db, accountId, [email]);
  const sub = await db
    .selectFrom('subscribers')
    .select('id')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .executeTakeFirstOrThrow();
  const automation = await db
    .insertInto('automations')
    .values({
      account_id: accountId,
      name: 'Welcome',
      trigger: JSON.stringify({ type: 'subscriber.created' }),
      steps: '[]',
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const run = await db
    .insertInto('automation_runs')
    .values({
      account_id: accountId,
      automation_id: automation.id,
      subscriber_id: sub.id,
      trigger_event_id: randomUUID(),
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const row = await db
    .insertInto('automation_emails')
    .values({
      account_id: accountId,
      automation_id: automation.id,
      run_id: run.id,
      step: '0',
      subscriber_id: sub.id,
      state: 'sent',
      message_id: `${randomUUID()}@mg.example`,
      sent_at: new Date(),
    } as never)
    .returning(['id', 'message_id'])
    .executeTakeFirstOrThrow();
  return { accountId, subscriberId: sub.id, automationId: automation.id, emailId: row.id, messageId: row.message_id! };
}

/**
 * An ARF (RFC 5965) abuse report quoting our message: its Message-ID, and the Return-Path and
 * List-Unsubscribe the receiving server kept when given (what a feedback loop's report is matched by).
 */
export function arf(o: {
  to: string;
  rcpt: string;
  messageId?: string;
  returnPath?: string;
  listUnsubscribe?: string;
}) {
  return [
    'From: staff@hotmail.example',
    `To: ${o.to}`,
    'Subject: complaint about message from 192.0.2.1',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="A1"',
    '',
    '--A1',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    '--A1',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    `Original-Rcpt-To: ${o.rcpt}`,
    '',
    '--A1',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    ...(o.returnPath ? [`Return-Path: <${o.returnPath}>`] : []),
    'From: news@example.com',
    `To: ${o.rcpt}`,
    'Subject: Hello',
    ...(o.messageId ? [`Message-ID: <${o.messageId}>`] : []),
    ...(o.listUnsubscribe ? [`List-Unsubscribe: ${o.listUnsubscribe}`] : []),
    '',
    'Hi',
    '',
    '--A1--',
    '',
  ].join('\r\n');
}

/** A DSN about an automation email, at that email's own return path (at b.example). */
export function automationBounce(
  secret: string,
  e: { emailId: string; messageId: string },
  email: string,
  status = '5.1.1',
): { returnPath: string; raw: string } {
  const returnPath = verpAddress(secret, 'bounce', { kind: 'automation', emailId: e.emailId }, 'b.example');
  const raw = dsn({ to: returnPath, rcpt: email, status, diagnostic: `550 ${status} unknown`, messageId: e.messageId });
  return { returnPath, raw };
}
