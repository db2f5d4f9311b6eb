// What SpamAssassin makes of the mail Mailgrove sends (skipped where `spamassassin` is not installed; CI
// installs the Debian package): a short tracked campaign, as it reaches an SMTP sink, and the double
// opt-in confirmation mail score below 0.5 with the local rules, and neither hits the rules the open
// pixel (HTML_IMAGE_ONLY_*) or a coloured button (HTML_FONT_LOW_CONTRAST) used to. Local rules only
// (-L): no network lookups leave the machine; the rules that would run over the network are about the
// sending host and its domain, not about the content these tests judge.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { confirmationMail } from '../../src/domain/forms/confirmationMail.ts';
import { composeMessage } from '../../src/mail/mime.ts';
import { seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { fileScope } from '../support/scope.ts';
import { startServer } from '../support/server.ts';
import { startSink } from '../support/smtpSink.ts';

const installed = spawnSync('spamassassin', ['--version']).status === 0;

/** SpamAssassin's score and the rules that hit, local tests only. */
function judge(raw: string | Buffer): { score: number; rules: string[] } {
  const r = spawnSync('spamassassin', ['-L', '-t'], { input: raw, encoding: 'utf8', timeout: 120_000 });
  const score = /X-Spam-Status: \w+, score=(-?[\d.]+)/.exec(r.stdout)?.[1];
  const tests = /tests=([\s\S]*?)\s+autolearn/.exec(r.stdout)?.[1] ?? '';
  assert.ok(score !== undefined, `spamassassin answered: ${r.stdout.slice(0, 500)} ${r.stderr}`);
  return { score: Number(score), rules: tests.split(/[,\s]+/).filter(Boolean) };
}

describe('SpamAssassin', { skip: !installed && 'spamassassin is not installed' }, () => {
  test('a short tracked campaign scores below 0.5 and is not "image only"', async () => {
    const sink = await startSink();
    after(() => sink.close());
    const s = await startServer(fileScope, {
      SMTP_URL: sink.url,
      PUBLIC_URL: 'https://mail.acme-garden.com',
      WORKER_POLL_MS: 100,
    });
    const { api, accountId } = await s.restAccount();
    await api.put('/account', { name: 'Acme Garden', postal_address: 'Acme Garden Ltd\n1 Main Street\nSpringfield' });
    const { groupId } = await seedAudience(s.db, accountId, 1, { domain: 'example.org' });
    const created = await api.post('/campaigns', {
      name: 'Short',
      subject: 'The winter collection is in',
      preview_text: 'Open on Monday, with a cup of tea for everyone',
      from_name: 'Acme Garden',
      from_email: 'news@acme-garden.com',
      content_html:
        '<p>Hello {{ subscriber.first_name | default: "there" }},</p><p>Our shop opens again on Monday with the winter ' +
        'collection. <a href="https://acme-garden.com/winter">Have a look</a>.</p>',
      group_ids: [groupId],
    });
    const c = created.body.data;
    assert.deepEqual([c.track_opens, c.track_clicks], [true, true]);
    assert.equal((await api.post(`/campaigns/${c.id}/schedule`, { delivery: 'instant' })).status, 200);
    await waitForCampaign(api, c.id, (x) => x.status === 'sent');
    const message = sink.messages.find((m) => m.parsed?.subject === 'The winter collection is in')!;
    assert.ok(message.parsed!.html && String(message.parsed!.html).includes('/t/o/'), 'the message is tracked');
    const { score, rules } = judge(message.raw);
    assert.ok(!rules.some((r) => r.startsWith('HTML_IMAGE_ONLY')), rules.join(' '));
    assert.ok(score < 0.5, `score ${score}: ${rules.join(' ')}`);
  });

  test('the double opt-in confirmation mail scores below 0.5, without low-contrast text', () => {
    const m = confirmationMail({
      firstName: 'Ada',
      sender: 'Acme Garden',
      link: 'https://mail.acme-garden.com/f/confirm/0123456789abcdefghijklmnopqrstuvwxyz',
    });
    const composed = composeMessage({
      from: 'Acme Garden <news@acme-garden.com>',
      to: 'ada@example.org',
      subject: m.subject,
      html: m.html,
      text: m.text,
      messageId: 'confirm-1@acme-garden.com',
    })!;
    const { score, rules } = judge(composed.raw);
    assert.ok(!rules.some((r) => r.includes('LOW_CONTRAST')), rules.join(' '));
    assert.ok(score < 0.5, `score ${score}: ${rules.join(' ')}`);
  });
});
