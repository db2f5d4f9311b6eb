// The SMTP thread (mail/smtpThreadClient.ts): replies come back to the message they answer, however many
// are in flight; a thread that dies fails its pending messages as transient (retried, never lost) and
// the next message starts a new thread (and the owner is told, to log it); after close, sends fail
// without hanging.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { smtpSettings } from '../../src/mail/smtpSender.ts';
import { SmtpThreadClient } from '../../src/mail/smtpThreadClient.ts';
import { startSink } from '../support/smtpSink.ts';

const sink = await startSink({
  parse: false,
  reply: (rcpt) => (rcpt.startsWith('no') ? [550, '5.1.1 No such user here'] : undefined),
});
after(() => sink.close());
const settings = smtpSettings({ ...loadConfig({ SMTP_URL: sink.url, SEND_CONCURRENCY: '3' }, {}), secret: 's' });

const msg = (to: string, messageId = `${to}-id@test`) => ({
  accountId: null,
  from: 'News <news@acme.test>',
  to,
  subject: 'Hello',
  html: '<p>Hi</p>',
  text: 'Hi',
  messageId,
});

test('60 messages at once over 3 connections: each gets its own reply', async () => {
  const client = new SmtpThreadClient(settings);
  try {
    const tos = Array.from({ length: 60 }, (_, i) => (i % 7 === 0 ? `no${i}@thread.test` : `yes${i}@thread.test`));
    const results = await Promise.all(tos.map((to) => client.send(msg(to))));
    results.forEach((r, i) => {
      const to = tos[i]!;
      if (to.startsWith('no')) {
        assert.equal(r.ok, false, to);
        assert.deepEqual(!r.ok && [r.permanent, r.code], [true, 550]);
      } else assert.deepEqual(r, { ok: true, messageId: `${to}-id@test`, response: r.ok ? r.response : '' });
    });
    assert.equal(sink.counts.get('yes1@thread.test'), 1);
    assert.equal(sink.counts.get('no0@thread.test'), undefined);
  } finally {
    await client.close();
  }
});

test('a thread that dies mid-send: its messages fail as transient, the next one goes through a new thread', async () => {
  const client = new SmtpThreadClient(settings);
  const told: string[] = [];
  client.onError = (err) => told.push(err.message);
  try {
    sink.setDelay(1000);
    const inFlight = client.send(msg('slow@thread.test'));
    await sink.waitFor(() => sink.rcptAttempts.has('slow@thread.test'));
    await (client as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
    const cut = await inFlight;
    assert.equal(cut.ok, false);
    assert.equal(!cut.ok && cut.permanent, false);
    assert.match(!cut.ok ? cut.error : '', /SMTP thread stopped/);
    assert.equal(told.length, 1, 'the owner is told once (the log line in main.ts)');
    assert.match(told[0]!, /SMTP thread stopped/);
    sink.setDelay(0);
    const next = await client.send(msg('after@thread.test'));
    assert.equal(next.ok, true, JSON.stringify(next));
    assert.equal(sink.counts.get('after@thread.test'), 1);
  } finally {
    sink.setDelay(0);
    await client.close();
  }
});

test('after close, a send fails at once as transient', async () => {
  const client = new SmtpThreadClient(settings);
  client.onError = (err) => assert.fail(`a thread closed on purpose is not an error: ${err.message}`);
  assert.equal((await client.send(msg('before-close@thread.test'))).ok, true);
  await client.close();
  const res = await client.send(msg('after-close@thread.test'));
  assert.deepEqual(res, { ok: false, permanent: false, error: 'The SMTP connection pool is closed' });
  await new SmtpThreadClient(settings).close(); // never started: nothing to wait for
});
