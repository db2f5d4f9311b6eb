import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classify, parseReply } from '../../src/mail/smtpReply.ts';

describe('SMTP replies', () => {
  test('the enhanced status code is read after the basic code, and only when the classes agree', () => {
    assert.deepEqual(parseReply(550, '550 5.1.1 <a@b.example>: Recipient address rejected'), {
      code: 550,
      status: '5.1.1',
      reply: '550 5.1.1 <a@b.example>: Recipient address rejected',
    });
    assert.equal(parseReply(421, '421 4.7.0 Try again later, closing connection.').status, '4.7.0');
    assert.equal(parseReply(undefined, '452-4.2.2 The email account is over quota').code, 452);
    assert.equal(parseReply(550, '550 4.1.1 mixed up').status, null, 'class 4 under a 550 is not a status');
    assert.equal(parseReply(550, '550 version 1.2.3 of the rules').status, null);
    assert.equal(parseReply(null, 'Connection closed').code, null);
  });

  test('mailbox problems are hard, 4xx and 421 are deferred (421 and 4.7.x throttled), 5.7.x blocked', () => {
    const cls = (code: number | null, text: string) => classify(parseReply(code, text));
    assert.equal(cls(550, '550 5.1.1 no such user'), 'hard');
    assert.equal(cls(552, '552 5.2.1 mailbox disabled'), 'hard');
    assert.equal(cls(553, '553 5.5.4 bad address syntax'), 'hard');
    assert.equal(cls(550, '550 no such user here'), 'hard', 'a bare 550 is about the mailbox');
    assert.equal(cls(452, '452 4.2.2 over quota'), 'deferred');
    assert.equal(cls(450, '450 mailbox busy'), 'deferred');
    assert.equal(cls(null, 'Connection timeout'), 'deferred');
    assert.equal(cls(421, '421 4.7.0 too many messages, slow down'), 'throttled');
    assert.equal(cls(451, '451 4.7.1 greylisted'), 'throttled');
    assert.equal(cls(554, '554 5.7.1 Message rejected as spam'), 'blocked');
    assert.equal(cls(552, '552 5.3.4 message too big'), 'failed');
    assert.equal(cls(554, '554 transaction failed'), 'failed');
  });
});
