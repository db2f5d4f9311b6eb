// Campaigns sent end to end (issue 5 "Tests"): the real server, a real SMTP conversation with an
// smtp-server sink in this process, every message parsed with mailparser.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileScope, ledgerCounts, seedAudience, waitForCampaign } from '../support/campaigns.ts';
import { client, restClient, startServer, type TestServer } from '../support/server.ts';
import { startSink, type Sink } from '../support/smtpSink.ts';

const sink: Sink = await startSink();
after(() => sink.close());
const s: TestServer = await startServer(fileScope, { SMTP_URL: sink.url, WORKER_POLL_MS: 100, SCHEDULER_INTERVAL_MS: 200, SEND_RETRY_BASE_MS: 100, SEND_MAX_ATTEMPTS: 3 });
// PORT=0 gives PUBLIC_URL port 0; links in emails must point at the port the server really got
s.config.publicUrl = s.url;

/** A header's raw value as sent (mailparser folds List-* headers into a structured `list` object). */
function header(m: { headerLines: readonly { key: string; line: string }[] }, name: string): string | undefined {
  const h = m.headerLines.find((l) => l.key === name.toLowerCase());
  return h?.line.slice(h.line.indexOf(':') + 1).trim();
}

function toOf(sinkMsgs: Sink['messages'], domain: string) {
  return sinkMsgs.filter((m) => m.to[0]!.endsWith(`@${domain}`));
}

describe('Sending', () => {
  test('DESIGN §6 rendering: personalised subject and body, HTML and text parts, bulk headers, List-Unsubscribe-Post', async () => {
    const { accountId, key } = await s.newAccount();
    const api = restClient(s.url, key);
    const { groupId } = await seedAudience(s.db, accountId, 3, { domain: 'render.test' });
    const created = await api.post('/campaigns', {
      name: 'Welcome',
      subject: 'Hi {{ subscriber.first_name | default: "there" }}',
      from_name: 'Acme News',
      from_email: 'news@acme.test',
      reply_to: 'help@acme.test',
      content_html: '<html><body><p>Hello {{ subscriber.first_name }} from {{ subscriber.custom_fields.company }} ({{ campaign.name }})</p><a href="https://acme.test/offer?a=1&amp;b=2">Offer</a></body></html>',
      group_ids: [groupId],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data.id;
    const scheduled = await api.post(`/campaigns/${id}/schedule`, { delivery: 'instant' });
    assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
    assert.equal(scheduled.body.data.status, 'sending');
    const done = await waitForCampaign(api, id, (c) => c.status === 'sent');
    assert.equal(done.stats.recipients, 3);
    assert.equal(done.stats.sent, 3);
    const mails = toOf(sink.messages, 'render.test');
    assert.equal(mails.length, 3);
    const m = mails.find((x) => x.to[0] === 'r2@render.test')!.parsed!;
    assert.equal(m.subject, 'Hi Name2');
    assert.match(m.html as string, /Hello Name2 from Co2 \(Welcome\)/);
    assert.match(m.text!, /Hello Name2 from Co2 \(Welcome\)/);
    assert.equal(m.from!.text, '"Acme News" <news@acme.test>');
    assert.equal(m.replyTo!.text, 'help@acme.test');
    assert.equal(m.headers.get('precedence'), 'bulk');
    assert.equal(header(m, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
    assert.match(header(m, 'List-Unsubscribe')!, new RegExp(`^<${s.url}/u/[A-Za-z0-9_-]+>$`));
    assert.ok(m.messageId && /^<[^@]+@[^>]+>$/.test(m.messageId));
    assert.equal(new Set(mails.map((x) => x.parsed!.messageId)).size, 3, 'Message-IDs are unique');
    // ledger keeps the message id of each recipient
    const rec = await api.get(`/campaigns/${id}/recipients?filter=sent`);
    assert.equal(rec.body.data.recipients.length, 3);
    assert.ok(rec.body.data.recipients.every((r: any) => m.messageId!.length > 0 && r.message_id && r.state === 'sent'));
    assert.deepEqual(await ledgerCounts(s.db, id), { sent: 3 });
  });
});
