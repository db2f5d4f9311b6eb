// A real SMTP server in the test process (smtp-server on 127.0.0.1:0) that records what arrives, per
// recipient, with the envelope sender each message came with. It can answer chosen recipients with 4xx/5xx, delay each message (to cancel or kill mid-send),
// and parse messages with mailparser's simpleParser (off for bulk runs, where it only counts).
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SinkOptions {
  /** parse each message with simpleParser and keep it (default true) */
  parse?: boolean;
  /** per RCPT TO: return [code, text] to refuse, undefined to accept; `attempt` counts this address's RCPTs from 1 */
  reply?: (rcpt: string, attempt: number) => [number, string] | undefined;
  /** wait this long before accepting each message */
  delayMs?: number;
}

export interface Received {
  /** the envelope sender (MAIL FROM); '' for the null sender */
  from: string;
  to: string[];
  raw: Buffer;
  /** the name the client gave in EHLO/HELO */
  helo?: string;
  parsed?: ParsedMail;
}

export interface Sink {
  port: number;
  /** SMTP_URL for Mailgrove: plain SMTP on loopback, no STARTTLS */
  url: string;
  messages: Received[];
  /** accepted deliveries per lower-cased recipient */
  counts: Map<string, number>;
  rcptAttempts: Map<string, number>;
  total(): number;
  distinct(): number;
  /** resolves when pred() holds (polled), rejects after timeoutMs */
  waitFor(pred: () => boolean, timeoutMs?: number): Promise<void>;
  setDelay(ms: number): void;
  close(): Promise<void>;
}

export async function startSink(opts: SinkOptions = {}): Promise<Sink> {
  const messages: Received[] = [];
  const counts = new Map<string, number>();
  const rcptAttempts = new Map<string, number>();
  let delayMs = opts.delayMs ?? 0;
  let total = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 20 * 1024 * 1024,
    onRcptTo(address, _session, cb) {
      const rcpt = address.address.toLowerCase();
      const attempt = (rcptAttempts.get(rcpt) ?? 0) + 1;
      rcptAttempts.set(rcpt, attempt);
      const refusal = opts.reply?.(rcpt, attempt);
      if (!refusal) return cb();
      const err = new Error(refusal[1]) as Error & { responseCode: number };
      err.responseCode = refusal[0];
      cb(err);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        const parsed = opts.parse === false ? undefined : await simpleParser(raw);
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        for (const rcpt of to) counts.set(rcpt, (counts.get(rcpt) ?? 0) + 1);
        total += to.length;
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push({
          from,
          to,
          raw: opts.parse === false ? Buffer.alloc(0) : raw,
          parsed,
          helo: session.hostNameAppearsAs,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // a sender killed mid-session (the kill -9 tests) resets its socket: smtp-server reports that as an
  // 'error' event, which without a listener is an uncaught exception in the test process
  server.on('error', () => {});
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    url: `smtp://127.0.0.1:${port}?starttls=false`,
    messages,
    counts,
    rcptAttempts,
    total: () => total,
    distinct: () => counts.size,
    async waitFor(pred, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!pred()) {
        if (Date.now() > until) throw new Error(`sink: condition not met within ${timeoutMs} ms (received ${total})`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    setDelay(ms) {
      delayMs = ms;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
