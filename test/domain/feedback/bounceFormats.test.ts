// Providers' reports judged by the one SMTP classifier where they quote a reply.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from '../../../src/domain/feedback/bounceFormats.ts';

const ses = (bounceType: string, recipient: Record<string, unknown>) => ({
  notificationType: 'Bounce',
  bounce: { bounceType, bouncedRecipients: [{ emailAddress: 'a@b.example', ...recipient }] },
  mail: {},
});

describe('bounce reports and the SMTP classifier', () => {
  test('SES: a Transient bounce quoting 5.1.1 is hard; a Permanent one quoting 4.2.2 is soft; no quote → the provider', () => {
    const [transient] = parse(
      'ses',
      ses('Transient', { status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 no user' }),
    ).reports;
    assert.deepEqual([transient!.kind, transient!.smtp_status, transient!.reply_class], ['hard', '5.1.1', 'hard']);
    const [quota] = parse('ses', ses('Permanent', { diagnosticCode: 'smtp; 452 4.2.2 over quota' })).reports;
    assert.deepEqual([quota!.kind, quota!.smtp_status], ['soft', '4.2.2']);
    const [bare] = parse('ses', ses('Permanent', { diagnosticCode: 'smtp; 550 no such user' })).reports;
    assert.equal(bare!.kind, 'hard', 'the basic code after "smtp;" is read');
    const [silent] = parse('ses', ses('Transient', {})).reports;
    assert.deepEqual([silent!.kind, silent!.reply_class], ['soft', undefined]);
  });

  test("a policy refusal (5.7.x) is soft and marked blocked; any other 5xx leaves the provider's word", () => {
    const [policy] = parse('ses', ses('Permanent', { status: '5.7.1' })).reports;
    assert.deepEqual([policy!.kind, policy!.reply_class], ['soft', 'blocked']);
    const [other] = parse('sendgrid', [
      { event: 'bounce', email: 'a@b.example', status: '5.0.0', reason: '500 unknown recipient' },
    ]).reports;
    assert.deepEqual([other!.kind, other!.reply_class], ['hard', 'failed']);
    const [deferred] = parse('sendgrid', [
      { event: 'deferred', email: 'a@b.example', response: '400 try again later' },
    ]).reports;
    assert.equal(deferred!.kind, 'soft');
  });

  test('Postmark Details and the generic status; complaints are never reclassified', () => {
    const [pm] = parse('postmark', {
      Type: 'SoftBounce',
      Email: 'a@b.example',
      Details: '550 5.1.1 The email account does not exist',
    }).reports;
    assert.equal(pm!.kind, 'hard');
    const [free] = parse('postmark', {
      Type: 'HardBounce',
      Email: 'a@b.example',
      Details: 'Test bounce details',
    }).reports;
    assert.equal(free!.kind, 'hard');
    const reports = parse('generic', [
      { email: 'a@b.example', type: 'soft', status: '5.1.1' },
      { email: 'b@b.example', type: 'hard', status: '4.2.2' },
      { email: 'c@b.example', type: 'complaint', status: '5.1.1' },
      { email: 'd@b.example', type: 'soft', status: 'garbage' },
    ]).reports;
    assert.deepEqual(
      reports.map((r) => r.kind),
      ['hard', 'soft', 'complaint', 'soft'],
    );
    assert.throws(() => parse('generic', [{ email: 'a@b.example', type: 'soft', status: 'x'.repeat(101) }]), /status/);
  });
});
