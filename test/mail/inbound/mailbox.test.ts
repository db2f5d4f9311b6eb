// The bounce mailbox's own parts: its URL and the delivery headers that say which return path a message
// in the mailbox was sent to; then polling a real IMAP server (Dovecot, test/support/imapServer.ts) with
// the rules behind it stubbed: what is taken goes, what failed stays, a wrong password is a recorded
// error, and of two pollers sharing a lease one reads each message.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InboundMessage } from '../../../src/mail/inbound/listener.ts';
import { deliveredTo, mailboxSettings, pollRound, startMailboxPoller } from '../../../src/mail/inbound/mailbox.ts';
import { dovecotSkip, startImapServer, type ImapServer } from '../../support/imapServer.ts';

test('BOUNCE_IMAP_URL: imaps and imap with STARTTLS, the folder and what to do with processed mail', () => {
  assert.deepEqual(mailboxSettings('imaps://u%40x:p%2Fw@mail.example/Bounces?processed=Done'), {
    host: 'mail.example',
    port: 993,
    secure: true,
    doSTARTTLS: undefined,
    rejectUnauthorized: true,
    user: 'u@x',
    pass: 'p/w',
    folder: 'Bounces',
    processed: { moveTo: 'Done' },
  });
  const plain = mailboxSettings('imap://u:p@127.0.0.1:1143?tls_reject_unauthorized=false');
  assert.equal(plain.port, 1143);
  assert.equal(plain.doSTARTTLS, true);
  assert.equal(plain.folder, 'INBOX');
  assert.equal(plain.processed, 'delete');
  assert.equal(plain.rejectUnauthorized, false);
  assert.throws(() => mailboxSettings('pop3://u:p@host'), /imap/);
});

test('the return path a mailbox message was delivered to: Delivered-To before To', () => {
  const msg = (head: string) => Buffer.from(`${head}\r\nSubject: x\r\n\r\nTo: body@ignored.example\r\n`);
  assert.deepEqual(deliveredTo(msg('Delivered-To: bounce+abc@b.example\r\nTo: someone@else.example')), [
    'bounce+abc@b.example',
  ]);
  assert.deepEqual(deliveredTo(msg('X-Original-To: <bounce+q@b.example>')), ['bounce+q@b.example']);
  assert.deepEqual(deliveredTo(msg('To: "Bounces"\r\n <bounce+z@b.example>, other@b.example')), [
    'bounce+z@b.example',
    'other@b.example',
  ]);
  assert.deepEqual(deliveredTo(msg('From: a@b.example')), []);
});

const quiet = { info() {}, warn() {}, error() {} };
const mail = (to: string, subject: string) =>
  `Return-Path: <>\r\nDelivered-To: ${to}\r\nFrom: MAILER-DAEMON@relay.example\r\nSubject: ${subject}\r\n\r\nbody\r\n`;

describe('polling a real IMAP server', { skip: dovecotSkip }, () => {
  let imap: ImapServer;
  before(async () => {
    imap = await startImapServer({ bounces: 'pw-1', moved: 'pw-2', shared: 'pw-3' });
  });
  after(() => imap?.stop());

  test('unseen messages are handed over with their return path, then deleted; a second round finds none', async () => {
    await imap.append('bounces', mail('bounce+a@b.example', 'one'));
    await imap.append('bounces', mail('bounce+b@b.example', 'two'));
    const got: InboundMessage[] = [];
    const s = mailboxSettings(imap.url('bounces'));
    assert.equal(await pollRound(s, { log: quiet, receive: async (m) => void got.push(m) }), 2);
    assert.deepEqual(got.map((m) => m.rcptTo[0]).sort(), ['bounce+a@b.example', 'bounce+b@b.example']);
    assert.equal(got[0]!.mailFrom, '');
    assert.deepEqual(await imap.list('bounces'), []);
    assert.equal(await pollRound(s, { log: quiet, receive: async (m) => void got.push(m) }), 0);
    assert.equal(got.length, 2);
  });

  test('?processed=<folder> moves what was taken; a message receive failed on stays for the next round', async () => {
    await imap.append('moved', mail('bounce+ok@b.example', 'fine'));
    await imap.append('moved', mail('bounce+fail@b.example', 'fails'));
    const s = mailboxSettings(imap.url('moved') + '&processed=Done');
    await imap.append('moved', 'Subject: x\r\n\r\nx\r\n', 'Done'); // the folder exists
    const taken = await pollRound(s, {
      log: quiet,
      receive: async (m) => {
        if (m.rcptTo[0] === 'bounce+fail@b.example') throw new Error('database down');
      },
    });
    assert.equal(taken, 1);
    const left = await imap.list('moved');
    assert.equal(left.length, 1);
    assert.match(left[0]!.source, /bounce\+fail@/);
    assert.ok(!left[0]!.flags.includes('\\Seen'), 'kept unseen for the next round');
    assert.ok((await imap.list('moved', 'Done')).some((m) => /bounce\+ok@/.test(m.source)));
  });

  test('two pollers of one mailbox under one lease: each message is read once', async () => {
    for (let i = 0; i < 6; i++) await imap.append('shared', mail(`bounce+${i}@b.example`, `m${i}`));
    let held = false;
    const claim = async () => {
      if (held) return undefined;
      held = true;
      return async () => void (held = false);
    };
    const got: string[] = [];
    const start = () =>
      startMailboxPoller({
        url: imap.url('shared'),
        intervalMs: 60_000,
        log: quiet,
        claim,
        receive: async (m) => {
          await new Promise((r) => setTimeout(r, 20));
          got.push(m.rcptTo[0]!);
        },
      });
    const [a, b] = [start(), start()];
    try {
      await Promise.all([a.poll(), b.poll()]);
      await Promise.all([a.poll(), b.poll()]);
      assert.equal(got.length, 6);
      assert.equal(new Set(got).size, 6);
      assert.deepEqual(await imap.list('shared'), []);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  // last: Dovecot slows down logins from an address after a failed one
  test('a wrong password is a recorded error, not a crash', async () => {
    const url = imap.url('bounces').replace(':pw-1@', ':wrong-password@');
    const poller = startMailboxPoller({ url, intervalMs: 60_000, log: quiet, receive: async () => {} });
    try {
      await poller.poll();
      assert.ok(poller.state.lastPollAt);
      assert.match(poller.state.lastError ?? '', /authentication failed/i);
      assert.ok(!poller.state.lastError!.includes('wrong-password'));
    } finally {
      await poller.stop();
    }
  });
});
