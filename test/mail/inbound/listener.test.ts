// The inbound listener against hostile clients, over real sockets; the rules behind it are stubbed.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { startListener, type InboundMessage, type ListenerLimits } from '../../../src/mail/inbound/listener.ts';

const quiet = { info() {}, warn() {}, error() {} };

async function listener(t: { after(fn: () => unknown): void }, limits: Partial<ListenerLimits> = {}, fail = false) {
  const received: InboundMessage[] = [];
  const warnings: string[] = [];
  const l = await startListener({
    host: '127.0.0.1',
    port: 0,
    limits,
    accepts: (a) => a.startsWith('bounce+'),
    receive: async (m) => {
      if (fail) throw new Error('database down');
      received.push(m);
    },
    log: { ...quiet, warn: (o: object) => void warnings.push(JSON.stringify(o)) },
  });
  t.after(() => l.close());
  return { l, received, warnings };
}

/** A raw client: write lines, read what the server says, know when it hangs up. */
async function raw(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  let said = '';
  let closed = false;
  socket.on('data', (d) => (said += d.toString()));
  socket.on('error', () => {});
  const ended = new Promise<void>((r) => socket.on('close', () => ((closed = true), r())));
  await new Promise<void>((r) => socket.once('connect', () => r()));
  const until = async (pred: () => boolean, ms = 5000) => {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out; server said:\n${said.slice(-500)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  await until(() => /^(220|421) /m.test(said));
  return { socket, said: () => said, closed: () => closed, ended, until };
}

async function send(port: number, to: string[], body: string | Buffer): Promise<string> {
  const conn = new SMTPConnection({ host: '127.0.0.1', port, ignoreTLS: true, logger: false });
  await new Promise<void>((resolve, reject) => {
    conn.once('error', reject);
    conn.connect(() => resolve());
  });
  try {
    return await new Promise<string>((resolve, reject) =>
      conn.send({ from: '', to }, body, (err, info) =>
        err ? reject(err) : resolve((info as { response: string }).response),
      ),
    );
  } finally {
    conn.close();
  }
}

test('takes mail for accepted addresses only, and answers 451 when it cannot record it', async (t) => {
  const { l, received } = await listener(t);
  assert.match(await send(l.port, ['bounce+abc@b.example'], 'Subject: x\r\n\r\nreport\r\n'), /^250/);
  assert.equal(received.length, 1);
  assert.equal(received[0]!.mailFrom, '');
  assert.deepEqual(received[0]!.rcptTo, ['bounce+abc@b.example']);
  await assert.rejects(send(l.port, ['postmaster@b.example'], 'x'), /550/);
  assert.equal(l.state.accepted, 1);
  const failing = await listener(t, {}, true);
  await assert.rejects(send(failing.l.port, ['bounce+abc@b.example'], 'x\r\n'), /451/);
});

test('a 50 MB message is read no further than the limit and refused', async (t) => {
  const { l, received } = await listener(t);
  const before = process.memoryUsage().rss;
  const line = Buffer.from('x'.repeat(998) + '\r\n');
  const big = Buffer.concat([Buffer.from('Subject: big\r\n\r\n'), ...Array(50 * 1024).fill(line)]);
  await assert.rejects(send(l.port, ['bounce+abc@b.example'], big), /552/);
  assert.equal(received.length, 0);
  // what was kept is at most the 10 MB limit (the 50 MB buffer itself is the test's)
  assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024);
});

test('10,000 RCPT TO in one session: refused past the limit, the session ended after 20 refusals', async (t) => {
  const { l, received } = await listener(t);
  const c = await raw(l.port);
  c.socket.write('EHLO test\r\nMAIL FROM:<>\r\n');
  await c.until(() => (c.said().match(/^250 /gm) ?? []).length >= 2);
  let written = 0;
  for (; written < 10_000 && !c.closed(); written++) {
    if (!c.socket.write(`RCPT TO:<bounce+${written}@b.example>\r\n`))
      await new Promise((r) => c.socket.once('drain', r));
  }
  await c.ended;
  assert.match(c.said(), /452 4\.5\.3 Too many recipients/);
  assert.match(c.said(), /421 4\.7\.0 Too many refused commands/);
  assert.ok((c.said().match(/^452 /gm) ?? []).length < 20, 'the session ends long before 10,000');
  assert.equal(received.length, 0);
});

test('an idle session is closed after idleMs, a slow drip after sessionMs', async (t) => {
  const { l } = await listener(t, { idleMs: 300, sessionMs: 1200 });
  const idle = await raw(l.port);
  const started = Date.now();
  await idle.ended;
  assert.ok(Date.now() - started < 3000);
  const slow = await raw(l.port);
  slow.socket.write('EHLO test\r\nMAIL FROM:<>\r\nRCPT TO:<bounce+a@b.example>\r\nDATA\r\n');
  const dripStart = Date.now();
  const drip = setInterval(() => slow.socket.write('x'), 100);
  await slow.ended;
  clearInterval(drip);
  const lasted = Date.now() - dripStart;
  assert.ok(lasted >= 800 && lasted < 4000, `closed after ${lasted} ms`);
});

test('too many connections a minute from one address are refused', async (t) => {
  const { l } = await listener(t, { perMinute: 3 });
  for (let i = 0; i < 3; i++) await send(l.port, ['bounce+a@b.example'], 'x\r\n').catch(() => {});
  // the fourth connection this minute is told to come back later
  const c = await raw(l.port);
  await c.ended;
  assert.match(c.said(), /^421 /m);
});
