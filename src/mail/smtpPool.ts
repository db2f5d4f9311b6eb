// Up to `maxConnections` SMTP connections, each opened on first need and reused for every message, over
// nodemailer's SMTPConnection (which speaks the protocol: EHLO, STARTTLS, AUTH, SMTPUTF8, dot-stuffing).
// Why not nodemailer's own pool (SMTPPool behind Mailer.sendMail): per message it builds a MailMessage, a
// MimeNode and a stream.pipeline, and on Node 20 every pipeline's AbortSignal survives the young
// generation — measured 0.6 KB promoted to the old generation per message, the largest share of what
// grew the server's heap during a campaign send (docs/performance.md, Sending). Here a message is one
// string handed to one connection, signed already (dkim.ts, by the sender).
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { publicAddresses } from './publicHost.ts';

/** Why a connection to an account's relay is refused before it is made. */
export const PRIVATE_RELAY = 'The SMTP relay host must not be a private, loopback or link-local address';

export interface SmtpPoolOptions {
  host: string;
  port: number;
  /** implicit TLS (smtps) */
  secure: boolean;
  /** never upgrade with STARTTLS */
  ignoreTLS: boolean;
  tls: { rejectUnauthorized: boolean };
  auth?: { user: string; pass: string };
  /** the EHLO name (smtpSender.ts ehloName) */
  name?: string;
  maxConnections: number;
  /**
   * connect only to public addresses of `host`, resolved through these DNS servers (DNS_SERVERS) at every
   * connection: an account's relay, unless ALLOW_PRIVATE_SMTP_RELAYS. Absent: the instance's SMTP_URL,
   * which the operator chose, connected to as named.
   */
  publicOnly?: { dnsServers: string };
}

export interface Envelope {
  from: string;
  to: string[];
}

interface Slot {
  conn: SMTPConnection;
  /** the server or the socket ended it: never handed out again */
  dead: boolean;
  /** counted out of `open` (once) */
  dropped: boolean;
}

type Waiter = (slot: Slot | undefined) => void;

export class SmtpPool {
  private readonly idle: Slot[] = [];
  private readonly waiting: Waiter[] = [];
  /** connections open or being opened */
  private open = 0;
  private closed = false;

  constructor(private readonly options: SmtpPoolOptions) {}

  /**
   * Sends one message (CRLF text) and resolves with the server's final reply, or rejects with
   * nodemailer's error (`responseCode` for SMTP replies, `code` ECONNECTION / ETIMEDOUT / … otherwise).
   */
  async send(envelope: Envelope, message: string | Buffer): Promise<string> {
    const slot = await this.acquire();
    try {
      const info = await new Promise<{ response: string }>((resolve, reject) =>
        slot.conn.send(envelope, message, (err, info) => (err ? reject(err) : resolve(info as { response: string }))),
      );
      this.release(slot);
      return info.response;
    } catch (err) {
      const e = err as { code?: string; responseCode?: number };
      // the server refused this message but the session is fine (RSET and reuse it), unless it said 421 (closing)
      if ((e.code === 'EENVELOPE' || e.code === 'EMESSAGE') && e.responseCode !== 421 && !slot.dead) {
        slot.conn.reset((resetErr) => (resetErr ? this.drop(slot) : this.release(slot)));
      } else {
        this.drop(slot);
      }
      throw err;
    }
  }

  /** Says QUIT on idle connections; busy ones close when their message is done. Later sends fail. */
  close(): void {
    this.closed = true;
    for (const slot of this.idle.splice(0)) {
      slot.conn.quit();
      this.drop(slot);
    }
    for (const waiter of this.waiting.splice(0)) waiter(undefined);
  }

  private async acquire(): Promise<Slot> {
    for (;;) {
      if (this.closed) throw Object.assign(new Error('The SMTP connection pool is closed'), { code: 'ECONNECTION' });
      const slot = this.idle.pop();
      if (slot) return slot; // dead ones leave `idle` as soon as they die (evict)
      if (this.open < this.options.maxConnections) {
        this.open++;
        return this.connect();
      }
      const handed = await new Promise<Slot | undefined>((resolve) => this.waiting.push(resolve));
      if (handed) return handed; // else a connection went away: look again (and maybe open one)
    }
  }

  private release(slot: Slot): void {
    if (this.closed || slot.dead) return this.drop(slot);
    const waiter = this.waiting.shift();
    if (waiter) waiter(slot);
    else this.idle.push(slot);
  }

  private drop(slot: Slot): void {
    if (slot.dropped) return;
    slot.dropped = true;
    slot.dead = true;
    this.open--;
    slot.conn.close();
    this.waiting.shift()?.(undefined);
  }

  /** A connection that ended while idle (server timeout, network) leaves the pool right away. */
  private evict(slot: Slot): void {
    slot.dead = true;
    const i = this.idle.indexOf(slot);
    if (i >= 0) {
      this.idle.splice(i, 1);
      this.drop(slot);
    }
  }

  private async connect(): Promise<Slot> {
    const { host, port, secure, ignoreTLS, tls, auth, name, publicOnly } = this.options;
    // a relay's name is resolved and checked here, and the connection goes to the address checked (SNI and
    // the certificate still name the host): a name re-pointed at a private address since it was saved fails
    let address: string | undefined;
    if (publicOnly) {
      try {
        address = (await publicAddresses({ DNS_SERVERS: publicOnly.dnsServers }, host, PRIVATE_RELAY))[0]!.address;
      } catch (err) {
        this.open--; // no connection was made: the slot is free again
        this.waiting.shift()?.(undefined);
        const e = err as { code?: string; message?: string };
        throw Object.assign(new Error(e.code === 'EPRIVATE' ? PRIVATE_RELAY : `Could not resolve ${host}`), {
          code: e.code === 'EPRIVATE' ? 'EPRIVATE' : 'EDNS',
        });
      }
    }
    // SNI and timeouts: SMTPConnection's defaults, as under nodemailer's own pool; the EHLO name is ours
    const conn = new SMTPConnection({
      host: address ?? host,
      ...(address && { servername: host }),
      port,
      secure,
      ignoreTLS,
      tls,
      name,
      logger: false,
    });
    const slot: Slot = { conn, dead: false, dropped: false };
    conn.on('error', () => this.evict(slot)); // a send in flight gets the same error through its callback
    conn.once('end', () => this.evict(slot));
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (err?: Error) =>
          reject(
            err ?? Object.assign(new Error('Connection closed before the SMTP greeting'), { code: 'ECONNECTION' }),
          );
        conn.once('error', fail);
        conn.once('end', fail);
        conn.connect(() => {
          conn.off('error', fail);
          conn.off('end', fail);
          resolve();
        });
      });
      if (auth && conn.allowsAuth)
        await new Promise<void>((resolve, reject) => conn.login(auth, (err) => (err ? reject(err) : resolve())));
      if (slot.dead)
        throw Object.assign(new Error('Connection closed after the SMTP greeting'), { code: 'ECONNECTION' });
      return slot;
    } catch (err) {
      this.drop(slot);
      throw err;
    }
  }
}
