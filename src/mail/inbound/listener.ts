// The inbound SMTP listener (INBOUND_SMTP_PORT, smtp-server): where late bounces, complaints and mailto
// unsubscribes are delivered. It takes mail only for the addresses `accepts` allows (our VERP return paths
// and unsubscribe addresses) and hands each message to `receive`, answering 250 once it is recorded (451
// when that failed, so the sending MTA keeps it and tries again). It knows nothing of the rules: the
// caller (src/jobs/inbound.ts) passes both functions.
//
// Hostile clients are bounded, each with a logged reason: a message over `maxBytes` is read no further
// and refused (552), more than `maxRecipients` RCPT TO are refused (452) and `maxRefusals` refused
// commands end the session (421), `maxClients` sessions at once, `perMinute` messages and connections a
// minute per client address, an idle session ends after `idleMs`, and any session after `sessionMs`
// however busy (a slow drip of bytes keeps resetting an idle timer, not this one). No reverse DNS, no AUTH,
// no relaying: nothing is ever sent from here, so a forged report cannot make us mail anyone.
import { readFileSync } from 'node:fs';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';

export interface InboundMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
}

export interface ListenerLimits {
  maxBytes: number;
  maxRecipients: number;
  maxRefusals: number;
  maxClients: number;
  perMinute: number;
  idleMs: number;
  sessionMs: number;
}

export const DEFAULT_LIMITS: ListenerLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxRecipients: 10,
  maxRefusals: 20,
  maxClients: 100,
  perMinute: 120,
  idleMs: 30_000,
  sessionMs: 5 * 60_000,
};

export interface ListenerOptions {
  host: string;
  port: number;
  /** PEM file paths; both set: STARTTLS is offered */
  tlsCert?: string;
  tlsKey?: string;
  limits?: Partial<ListenerLimits>;
  accepts(address: string): boolean;
  receive(m: InboundMessage): Promise<void>;
  log: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

/** What the listener has done since it started, for the Settings panel and the logs. */
export interface ListenerState {
  listening: boolean;
  address: string | null;
  tls: boolean;
  accepted: number;
  refused: number;
  lastReceivedAt: Date | null;
}

export interface Listener {
  port: number;
  state: ListenerState;
  close(): Promise<void>;
}

type Reply = Error & { responseCode: number };
const reply = (code: number, text: string): Reply => Object.assign(new Error(text), { responseCode: code });

export async function startListener(o: ListenerOptions): Promise<Listener> {
  const limits = { ...DEFAULT_LIMITS, ...o.limits };
  const tls = o.tlsCert && o.tlsKey ? { cert: readFileSync(o.tlsCert), key: readFileSync(o.tlsKey) } : undefined;
  const state: ListenerState = {
    listening: false,
    address: null,
    tls: !!tls,
    accepted: 0,
    refused: 0,
    lastReceivedAt: null,
  };
  const refusals = new Map<string, number>();
  const opened = new WeakMap<object, number>();
  const perClient = new Map<string, { minute: number; count: number }>();
  /** one more connection or message from this address this minute; false once over the limit */
  const withinRate = (ip: string): boolean => {
    const minute = Math.floor(Date.now() / 60_000);
    const r = perClient.get(ip);
    if (!r || r.minute !== minute) {
      if (perClient.size > 10_000) perClient.clear();
      perClient.set(ip, { minute, count: 1 });
      return true;
    }
    return ++r.count <= limits.perMinute;
  };
  const refuse = (session: SMTPServerSession, code: number, text: string, why: string): Reply => {
    state.refused++;
    const n = (refusals.get(session.id) ?? 0) + 1;
    refusals.set(session.id, n);
    o.log.warn({ session: session.id, remote: session.remoteAddress, code, why }, 'inbound mail refused');
    if (n >= limits.maxRefusals) return reply(421, '4.7.0 Too many refused commands, closing');
    return reply(code, text);
  };

  const options: SMTPServerOptions = {
    name: undefined,
    banner: 'Mailgrove bounce and feedback receiver',
    authOptional: true,
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls && { key: tls.key, cert: tls.cert }),
    disableReverseLookup: true,
    logger: false,
    size: limits.maxBytes,
    maxClients: limits.maxClients,
    socketTimeout: limits.idleMs,
    closeTimeout: 1000,
    onConnect(session, cb) {
      if (!withinRate(session.remoteAddress)) {
        o.log.warn({ remote: session.remoteAddress }, 'inbound connection refused: too many this minute');
        return cb(reply(421, '4.7.0 Too many connections from your address, try again later'));
      }
      cb();
    },
    onClose(session) {
      refusals.delete(session.id);
    },
    onMailFrom(_address, _session, cb) {
      cb();
    },
    onRcptTo(address, session, cb) {
      const rcpt = address.address;
      if (session.envelope.rcptTo.length >= limits.maxRecipients)
        return cb(refuse(session, 452, '4.5.3 Too many recipients', 'too many recipients'));
      if (!o.accepts(rcpt))
        return cb(refuse(session, 550, '5.1.1 No such mailbox here', `not an address of ours: ${rcpt.slice(0, 100)}`));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (c: Buffer) => {
        size += c.length;
        // past the limit the rest is read and dropped (the protocol needs the end of DATA), never kept
        if (size <= limits.maxBytes) chunks.push(c);
      });
      stream.once('end', () => {
        if (stream.sizeExceeded || size > limits.maxBytes)
          return cb(refuse(session, 552, '5.3.4 Message too big', `message over ${limits.maxBytes} bytes`));
        if (!withinRate(session.remoteAddress))
          return cb(refuse(session, 451, '4.7.0 Too many messages from your address, try again later', 'rate'));
        const m: InboundMessage = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
        };
        o.receive(m).then(
          () => {
            state.accepted++;
            state.lastReceivedAt = new Date();
            cb();
          },
          (err: unknown) => {
            o.log.error({ err, session: session.id }, 'inbound mail could not be recorded');
            cb(reply(451, '4.3.0 Could not record the message, try again later'));
          },
        );
      });
    },
  };
  const server = new SMTPServer(options);
  // a client that resets its socket is an 'error' event: logged, never a crash
  server.on('error', (err) => o.log.warn({ err }, 'inbound SMTP connection error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const bound = server.server.address() as { address: string; port: number };
  state.listening = true;
  state.address = `${bound.address}:${bound.port}`;
  // a session that stays connected too long, busy or not, is ended: slow drips reset the idle timer
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const conn of (server as unknown as { connections: Set<{ close(): void; id?: string }> }).connections) {
        const since = opened.get(conn) ?? (opened.set(conn, now), now);
        if (now - since > limits.sessionMs) {
          o.log.warn({ session: conn.id }, 'inbound session closed: over the session time limit');
          conn.close();
        }
      }
    },
    Math.max(50, Math.min(5000, limits.sessionMs / 4)),
  );
  sweep.unref();
  o.log.info({ address: state.address, tls: state.tls }, 'inbound SMTP listener started');
  return {
    port: bound.port,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        state.listening = false;
        server.close(() => resolve());
      }),
  };
}
