// What each SMTP reply makes of a ledger row at send time (outcomeOf), without a server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compose, failAll, outcomeOf, transient, type Claimed } from '../../../src/domain/campaigns/sending.ts';

const config = { SEND_MAX_ATTEMPTS: 3, SEND_RETRY_BASE_MS: 1000, SOFT_BOUNCE_LIMIT: 3 };
const row = (attempts: number): Claimed => ({
  id: 7,
  subscriber_id: 's',
  email: 'a@b.example',
  attempts,
  first_name: null,
  last_name: null,
  phone: null,
  status: 'active',
  custom_fields: {},
  created_at: new Date(),
});
const refused = (code: number, text: string) => ({ ok: false as const, permanent: code >= 500, code, error: text });

describe('outcomeOf: the reply at send time', () => {
  test('a delivery keeps its 250 line; the outbox has none', () => {
    const sent = outcomeOf(config, row(1), { ok: true, messageId: 'm@x', response: '250 2.0.0 Ok: queued as 1' });
    assert.deepEqual(sent, {
      id: 7,
      state: 'sent',
      message_id: 'm@x',
      reply: { code: 250, status: '2.0.0', reply: '250 2.0.0 Ok: queued as 1' },
    });
    assert.deepEqual(outcomeOf(config, row(1), { ok: true, messageId: 'm@x' }), {
      id: 7,
      state: 'sent',
      message_id: 'm@x',
    });
  });

  test('550 5.1.1 → failed/bounced, 554 5.7.1 → blocked, 552 5.3.4 → rejected, with the reply and last_error as before', () => {
    const hard = outcomeOf(config, row(1), refused(550, '550 5.1.1 User unknown'));
    assert.deepEqual(hard, {
      id: 7,
      state: 'failed',
      error: '550 550 5.1.1 User unknown',
      failure: 'bounced',
      reply: { code: 550, status: '5.1.1', reply: '550 5.1.1 User unknown' },
    });
    assert.equal((outcomeOf(config, row(1), refused(554, '554 5.7.1 spam')) as any).failure, 'blocked');
    assert.equal((outcomeOf(config, row(1), refused(552, '552 5.3.4 too big')) as any).failure, 'rejected');
    assert.equal((outcomeOf(config, row(1), refused(550, '550 no such user')) as any).failure, 'bounced');
  });

  test('4xx → queued with backoff and its class (throttled for 421 / 4.7.x); out of attempts → expired, a soft bounce', () => {
    const deferred = outcomeOf(config, row(2), refused(452, '452 4.2.2 Mailbox full'));
    assert.deepEqual(
      { ...deferred, reply: undefined },
      {
        id: 7,
        state: 'queued',
        error: '452 452 4.2.2 Mailbox full',
        retry_in_ms: 2000,
        reply: undefined,
        reply_class: 'deferred',
      },
    );
    assert.equal((outcomeOf(config, row(1), refused(421, '421 4.7.0 slow down')) as any).reply_class, 'throttled');
    const expired = outcomeOf(config, row(3), refused(452, '452 4.2.2 Mailbox full')) as any;
    assert.deepEqual([expired.state, expired.failure, expired.soft_bounce_limit], ['failed', 'expired', 3]);
    const throttled = outcomeOf(config, row(3), refused(421, '421 4.7.0 slow down')) as any;
    assert.deepEqual(
      [throttled.state, throttled.failure, throttled.soft_bounce_limit],
      ['failed', 'expired', undefined],
    );
  });

  test('no reply at all: retried, then error; nothing stored as a reply', () => {
    const lost = outcomeOf(config, row(1), transient(new Error('Connection closed')));
    assert.deepEqual([lost.state, (lost as any).reply], ['queued', undefined]);
    const gaveUp = outcomeOf(config, row(3), transient(new Error('Connection closed'))) as any;
    assert.deepEqual([gaveUp.state, gaveUp.failure, gaveUp.reply], ['failed', 'error', undefined]);
  });

  test('template errors fail as error', () => {
    assert.deepEqual(failAll([row(1)], new Error('bad tag'))[0], {
      id: 7,
      state: 'failed',
      error: 'Template error: bad tag',
      failure: 'error',
    });
    const outcomes: any[] = [];
    const broken = {
      build: () => {
        throw new Error('too slow');
      },
    } as any;
    assert.deepEqual(compose(broken, row(1), outcomes), []);
    assert.equal(outcomes[0].failure, 'error');
  });
});
