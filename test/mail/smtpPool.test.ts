// src/mail/smtpPool.ts against a real smtp-server: at most maxConnections connections, each reused; a
// connection the server closed while idle is replaced; a refused message does not cost the connection
// (RSET); a server that is down fails every waiting send instead of hanging; AUTH; close(); an account
// relay's host is checked (public addresses only) at every connection.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { PRIVATE_RELAY, SmtpPool, type SmtpPoolOptions } from '../../src/mail/smtpPool.ts';
import { startDnsServer } from '../support/dnsServer.ts';

interface Server {
  port: number;
  received: string[];
  opened: number;
  concurrent: number;
  peak: number;
  close(): Promise<void>;
}

const servers: Server[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function server(opts: Partial<SMTPServerOptions> = {}): Promise<Server> {
  const s: Server = { port: 0, received: [], opened: 0, concurrent: 0, peak: 0, close: async () => {} };
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, cb) {
      s.opened++;
      s.peak = Math.max(s.peak, ++s.concurrent);
      cb();
    },
    onClose() {
      s.concurrent--;
    },
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('refuse'))
        return cb(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      cb();
    },
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        s.received.push(...session.envelope.rcptTo.map((r) => r.address));
        cb();
      });
    },
    ...opts,
  });
  smtp.on('error', () => {});
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  s.port = (smtp.server.address() as { port: number }).port;
  s.close = () => new Promise<void>((resolve) => smtp.close(() => resolve()));
  servers.push(s);
  return s;
}

const options = (port: number, extra: Partial<SmtpPoolOptions> = {}): SmtpPoolOptions => ({
  host: '127.0.0.1',
  port,
  secure: false,
  ignoreTLS: true,
  tls: { rejectUnauthorized: true },
  maxConnections: 3,
  ...extra,
});
const message = (to: string) => `From: a@b.test\r\nTo: ${to}\r\nSubject: x\r\nMessage-ID: <${to}>\r\n\r\nhello\r\n`;
const send = (pool: SmtpPool, to: string) => pool.send({ from: 'a@b.test', to: [to] }, message(to));

describe('SmtpPool', () => {
  test('40 messages at once over at most 3 connections, each reused', async () => {
    const s = await server();
    const pool = new SmtpPool(options(s.port));
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => send(pool, `r${i}@x.test`)));
    assert.equal(s.received.length, 40);
    assert.equal(new Set(s.received).size, 40);
    assert.ok(
      replies.every((r) => /^250 /.test(r)),
      replies[0],
    );
    assert.equal(s.peak, 3);
    assert.equal(s.opened, 3, 'no connection was opened twice');
    pool.close();
  });

  test('a refused recipient (5xx) is an error with responseCode, and the connection stays in use', async () => {
    const s = await server();
    const pool = new SmtpPool(options(s.port, { maxConnections: 1 }));
    await assert.rejects(
      send(pool, 'refuse@x.test'),
      (err: any) => err.responseCode === 550 && /No such user/.test(err.response),
    );
    await send(pool, 'ok@x.test');
    assert.deepEqual(s.received, ['ok@x.test']);
    assert.equal(s.opened, 1);
    pool.close();
  });

  test('a connection the server closed while idle is replaced by a new one', async () => {
    const s = await server({ socketTimeout: 300 });
    const pool = new SmtpPool(options(s.port, { maxConnections: 1 }));
    await send(pool, 'first@x.test');
    await new Promise((r) => setTimeout(r, 800)); // the server times the idle connection out
    await send(pool, 'second@x.test');
    assert.deepEqual(s.received, ['first@x.test', 'second@x.test']);
    assert.equal(s.opened, 2);
    pool.close();
  });

  test('nobody listening: every send fails with a connection error, none hangs', async () => {
    const s = await server();
    await s.close();
    const pool = new SmtpPool(options(s.port, { maxConnections: 2 }));
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => send(pool, `d${i}@x.test`)));
    assert.ok(
      results.every((r) => r.status === 'rejected' && ['ECONNECTION', 'ESOCKET'].includes((r.reason as any).code)),
      JSON.stringify(results.map((r) => r.status === 'rejected' && (r.reason as any).code)),
    );
    pool.close();
  });

  test('AUTH with the credentials from SMTP_URL; a wrong password is a 535', async () => {
    const s = await server({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, cb) {
        if (auth.username === 'mg' && auth.password === 'secret') return cb(null, { user: 'mg' });
        cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
    });
    const good = new SmtpPool(options(s.port, { auth: { user: 'mg', pass: 'secret' } }));
    await send(good, 'authed@x.test');
    assert.deepEqual(s.received, ['authed@x.test']);
    good.close();
    const bad = new SmtpPool(options(s.port, { auth: { user: 'mg', pass: 'wrong' } }));
    await assert.rejects(send(bad, 'nope@x.test'), (err: any) => err.responseCode === 535);
    bad.close();
  });

  test('close(): idle connections say QUIT, later sends fail', async () => {
    const s = await server();
    const pool = new SmtpPool(options(s.port));
    await send(pool, 'one@x.test');
    pool.close();
    await assert.rejects(send(pool, 'two@x.test'), /pool is closed/);
    for (let i = 0; i < 50 && s.concurrent > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(s.concurrent, 0);
  });

  test("publicOnly (an account's relay): the name is resolved through DNS_SERVERS at every connection", async (t) => {
    const dns = await startDnsServer(t);
    const s = await server();
    dns.set('relay.acme.test', 'A', ['127.0.0.1']);
    const guarded = new SmtpPool(
      options(s.port, { host: 'relay.acme.test', publicOnly: { dnsServers: dns.server }, maxConnections: 1 }),
    );
    // re-pointed at loopback (as after a check at create time): refused before any connection
    await assert.rejects(
      send(guarded, 'one@x.test'),
      (err: any) => err.code === 'EPRIVATE' && err.message === PRIVATE_RELAY,
    );
    await assert.rejects(send(guarded, 'two@x.test'), (err: any) => err.code === 'EPRIVATE', 'the slot was given back');
    assert.ok(dns.queries.includes('A relay.acme.test'));
    dns.set('relay.acme.test', 'A', []);
    await assert.rejects(send(guarded, 'three@x.test'), (err: any) => err.code === 'EDNS');
    guarded.close();
    await assert.rejects(
      send(new SmtpPool(options(s.port, { publicOnly: { dnsServers: dns.server } })), 'four@x.test'),
      (err: any) => err.code === 'EPRIVATE',
      'an address literal is checked too',
    );
    assert.equal(s.opened, 0, 'nothing reached the server');
  });
});
