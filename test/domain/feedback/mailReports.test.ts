import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readMailReport, verdictOf } from '../../../src/domain/feedback/mailReports.ts';

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');
const SENT = { email: 'r@example.com', messageId: 'm1@mg.example' };

function dsn(fields: string[], quoted = ['Message-ID: <m1@mg.example>', 'Subject: hi']) {
  return crlf([
    'From: MAILER-DAEMON@relay.example',
    'Subject: Delivery Status Notification (Failure)',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    'It failed.',
    '--b',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; relay.example',
    '',
    ...fields,
    '',
    '--b',
    'Content-Type: text/rfc822-headers',
    '',
    ...quoted,
    '',
    '--b--',
    '',
  ]);
}

async function verdict(raw: Buffer) {
  return verdictOf((await readMailReport(raw)).report, SENT);
}

test('RFC 3464: 5.1.1 bounces, 4.x.x and other failures count as soft, 5.7.x is a policy block', async () => {
  const v = (status: string, diag: string, action = 'failed') =>
    verdict(
      dsn([
        `Final-Recipient: rfc822; r@example.com`,
        `Action: ${action}`,
        `Status: ${status}`,
        `Diagnostic-Code: smtp; ${diag}`,
      ]),
    );
  assert.deepEqual(await v('5.1.1', '550 5.1.1 no such user'), {
    effect: 'bounced',
    status: '5.1.1',
    detail: '550 5.1.1 no such user',
    replyClass: 'hard',
  });
  assert.equal((await v('4.2.2', '452 4.2.2 mailbox full')).effect, 'soft_bounced');
  assert.equal((await v('5.7.1', '550 5.7.1 spam')).effect, 'blocked');
  assert.equal((await v('4.4.7', 'timeout', 'delayed')).effect, 'delayed');
  // a folded diagnostic and an upper-case action still read
  const folded = await verdict(
    dsn([
      'Final-Recipient: rfc822;r@example.com',
      'Action: FAILED',
      'Status: 5.1.1 (mailbox unknown)',
      'Diagnostic-Code: smtp;',
      ' 550 no such user',
    ]),
  );
  assert.equal(folded.effect, 'bounced');
});

test('malformed and unrelated reports are ignored with a reason, never a bounce', async () => {
  const ignored = async (raw: Buffer, why: RegExp) => {
    const v = await verdict(raw);
    assert.equal(v.effect, 'ignored');
    assert.match((v as { reason: string }).reason, why);
  };
  await ignored(dsn([]), /per-recipient/);
  await ignored(
    dsn(['Final-Recipient: rfc822; r@example.com', 'Action: delivered', 'Status: 2.0.0']),
    /no failed recipient/,
  );
  await ignored(
    dsn(['Final-Recipient: rfc822; r@example.com', 'Action: failed', 'Status: banana']),
    /Status or Diagnostic/,
  );
  // a report about another message (a replayed or reused return path)
  await ignored(
    dsn(['Final-Recipient: rfc822; r@example.com', 'Action: failed', 'Status: 5.1.1'], ['Message-ID: <other@x>']),
    /another Message-ID/,
  );
  // a bounce of a bounce
  await ignored(
    dsn(
      ['Final-Recipient: rfc822; r@example.com', 'Action: failed', 'Status: 5.1.1'],
      ['Content-Type: multipart/report; report-type=delivery-status; boundary="z"'],
    ),
    /bounce of a bounce/,
  );
  // several failed recipients, none of them ours
  await ignored(
    dsn([
      'Final-Recipient: rfc822; a@x.example',
      'Action: failed',
      'Status: 5.1.1',
      '',
      'Final-Recipient: rfc822; b@x.example',
      'Action: failed',
      'Status: 5.1.1',
    ]),
    /several recipients/,
  );
  await ignored(
    crlf(['Content-Type: multipart/report; report-type=delivery-status; boundary="q"', '', '--q--']),
    /delivery-status part/,
  );
  await ignored(crlf(['Subject: hello', '', 'a person writing']), /not a delivery/);
  await ignored(Buffer.alloc(0), /not a delivery|parseable/);
});

test('RFC 5965 complaints, RFC 3834 auto-replies and bounces in words', async () => {
  const arf = (type: string) =>
    crlf([
      'Content-Type: multipart/report; report-type=feedback-report; boundary="a"',
      '',
      '--a',
      'Content-Type: message/feedback-report',
      '',
      `Feedback-Type: ${type}`,
      'Version: 1',
      '',
      '--a',
      'Content-Type: message/rfc822',
      '',
      'Message-ID: <m1@mg.example>',
      '',
      'x',
      '--a--',
    ]);
  assert.equal((await verdict(arf('abuse'))).effect, 'complained');
  assert.equal((await verdict(arf('not-spam'))).effect, 'ignored');
  assert.equal(
    (await verdict(crlf(['Auto-Submitted: auto-replied', 'Subject: Out of office', '', 'away']))).effect,
    'auto_reply',
  );
  assert.equal((await verdict(crlf(['Subject: Automatic reply: news', '', 'away']))).effect, 'auto_reply');
  assert.equal((await verdict(crlf(['X-Autoreply: yes', 'Subject: re', '', 'away']))).effect, 'auto_reply');
  const words = crlf([
    'From: postmaster@mail.example',
    'Subject: Mail delivery failed: returning message to sender',
    '',
    'A message that you sent could not be delivered to one or more of its recipients.',
    '  r@example.com',
    '    host mx.example [192.0.2.1]: 550 5.1.1 User unknown',
    '',
    '------ This is a copy of the message, including all the headers. ------',
    'Message-ID: <m1@mg.example>',
    '',
    'Status 5.7.1 in the quoted body is not the bounce',
  ]);
  const v = await verdict(words);
  assert.equal(v.effect, 'bounced');
  assert.equal((v as { status: string }).status, '5.1.1');
  // a bounce in words without any status code is not guessed at
  assert.equal(
    (await verdict(crlf(['From: MAILER-DAEMON@x.example', 'Subject: failure notice', '', 'Sorry.']))).effect,
    'ignored',
  );
});

test('hostile bytes: non-UTF-8 headers, NULs, deep nesting and a huge header never throw', async () => {
  const latin1 = Buffer.concat([
    Buffer.from('From: MAILER-DAEMON@x.example\r\nSubject: Unzustellbar: '),
    Buffer.from([0xe4, 0xf6, 0xfc, 0xff, 0xfe, 0x00, 0x01]),
    Buffer.from('\r\n\r\nStatus: 5.1.1 gone\r\n'),
  ]);
  const r = await readMailReport(latin1);
  assert.equal(r.report.type, 'dsn');
  let nested = 'x';
  for (let i = 0; i < 200; i++)
    nested = `Content-Type: multipart/mixed; boundary="n${i}"\r\n\r\n--n${i}\r\n${nested}\r\n--n${i}--`;
  await readMailReport(Buffer.from(nested));
  await readMailReport(Buffer.from(`Subject: ${'x'.repeat(2_000_000)}\r\n\r\nbody`));
  await readMailReport(Buffer.from('\u0000\u0000\u0000'));
});

test('the message an ARF report quotes inline: its Message-ID, Return-Path and List-Unsubscribe mailto', async () => {
  const raw = crlf([
    'From: fbl@provider.example',
    'Subject: complaint',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="f"',
    '',
    '--f',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    '',
    '--f',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    'Return-Path: <bounce+abc@b.example>',
    'Message-ID: <m1@mg.example>',
    'List-Unsubscribe: <https://mg.example/u/t>,',
    ' <mailto:unsubscribe%2Bxyz@b.example?subject=unsubscribe>',
    '',
    'Hi',
    '--f--',
    '',
  ]);
  const { report } = await readMailReport(raw);
  assert.equal(report.type, 'complaint');
  assert.deepEqual(report.type === 'complaint' && report.original, {
    messageId: 'm1@mg.example',
    returnPath: 'bounce+abc@b.example',
    unsubscribeMailto: 'unsubscribe+xyz@b.example',
    isReport: false,
  });
});
