// Late bounces and complaints come home: a campaign to 20 recipients through a relay that accepts
// everything (the sink records each envelope sender), then reports delivered over real SMTP to the inbound
// listener at each recipient's own return path. Exactly the 5.1.1 becomes bounced; the complaint
// complained (suppressed); the 4.2.2 counts toward its streak; the 5.7.1 is recorded only; the
// out-of-office, the forged token and a report replayed on another recipient's return path change nothing;
// a mail to one recipient's mailto unsubscribe address unsubscribes exactly that recipient.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOfType, sendCampaignTo } from '../support/campaigns.ts';
import { arf, deliver, dsn, inboundPort } from '../support/inbound.ts';
import { ADMIN_TOKEN, startServer } from '../support/server.ts';
import { signedIn } from '../http/dashboard/session.ts';
import { startSink } from '../support/smtpSink.ts';

const DOMAIN = 'bounces.example.test';

test('late reports and mailto unsubscribes come home to the exact recipient', async (t) => {
  const sink = await startSink();
  const server = await startServer(t, {
    SMTP_URL: sink.url,
    BOUNCE_DOMAIN: DOMAIN,
    INBOUND_SMTP_PORT: 0,
    SOFT_BOUNCE_LIMIT: 3,
  });
  // after the server: its SMTP connections to the sink end first (t.after hooks run in order)
  t.after(() => sink.close());
  const port = inboundPort();
  const { accountId, api } = await server.restAccount();
  const emails = Array.from({ length: 20 }, (_, i) => `late${i}@example.com`);
  const sent = await sendCampaignTo(server.db, api, accountId, emails, { from_email: 'news@example.com' });
  await sink.waitFor(() => sink.total() === 20);

  // every message has its own signed return path at BOUNCE_DOMAIN, and a mailto unsubscribe of its own
  const returnPath = new Map<string, string>();
  const unsubscribeAt = new Map<string, string>();
  for (const m of sink.messages) {
    assert.match(m.from, new RegExp(`^bounce\\+[a-z2-7]+@${DOMAIN.replace(/\./g, '\\.')}$`));
    assert.ok(m.from.split('@')[0]!.length <= 64);
    returnPath.set(m.to[0]!, m.from);
    const header =
      /^List-Unsubscribe:\s*(.*(?:\r\n[ \t].*)*)/im.exec(m.raw.toString())?.[1]?.replace(/\r\n\s+/g, ' ') ?? '';
    const mailto = /<mailto:(unsubscribe\+[a-z2-7]+@[^?>]+)\?subject=unsubscribe>/.exec(header);
    assert.ok(mailto, header);
    assert.ok(mailto[1]!.split('@')[0]!.length <= 64);
    unsubscribeAt.set(m.to[0]!, mailto[1]!);
  }
  assert.equal(new Set(returnPath.values()).size, 20);

  const [hard, soft, policy, complaint, away, forged, replayed, leaving] = emails;
  const msgId = (e: string) => sent.messageIds.get(e)!;
  const ok = /^250/;
  assert.match(
    await deliver(
      port,
      '',
      [returnPath.get(hard!)!],
      dsn({
        to: returnPath.get(hard!)!,
        rcpt: hard!,
        status: '5.1.1',
        diagnostic: '550 5.1.1 <x>: Recipient address rejected: User unknown',
        messageId: msgId(hard!),
      }),
    ),
    ok,
  );
  assert.match(
    await deliver(
      port,
      '',
      [returnPath.get(soft!)!],
      dsn({
        to: returnPath.get(soft!)!,
        rcpt: soft!,
        status: '4.2.2',
        diagnostic: '452 4.2.2 Mailbox full',
        messageId: msgId(soft!),
      }),
    ),
    ok,
  );
  assert.match(
    await deliver(
      port,
      '',
      [returnPath.get(policy!)!],
      dsn({
        to: returnPath.get(policy!)!,
        rcpt: policy!,
        status: '5.7.1',
        diagnostic: '550 5.7.1 Message rejected by policy',
        messageId: msgId(policy!),
      }),
    ),
    ok,
  );
  assert.match(
    await deliver(
      port,
      'staff@hotmail.example',
      [returnPath.get(complaint!)!],
      arf({ to: returnPath.get(complaint!)!, rcpt: complaint!, messageId: msgId(complaint!) }),
    ),
    ok,
  );
  const outOfOffice = [
    `From: ${away}`,
    `To: ${returnPath.get(away!)}`,
    'Subject: Automatic reply: Hello',
    'Auto-Submitted: auto-replied',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'I am out of the office until Monday.',
    '',
  ].join('\r\n');
  assert.match(await deliver(port, away!, [returnPath.get(away!)!], outOfOffice), ok);
  // one character of the token changed: the signature no longer holds
  const good = returnPath.get(forged!)!;
  const at = good.indexOf('@') - 1;
  const tampered = good.slice(0, at) + (good[at] === 'a' ? 'b' : 'a') + good.slice(at + 1);
  assert.match(
    await deliver(
      port,
      '',
      [tampered],
      dsn({ to: tampered, rcpt: forged!, status: '5.1.1', diagnostic: '550 5.1.1 unknown', messageId: msgId(forged!) }),
    ),
    ok,
  );
  // a report about someone else's message, sent to a return path its sender holds: not that message
  assert.match(
    await deliver(
      port,
      '',
      [returnPath.get(replayed!)!],
      dsn({
        to: returnPath.get(replayed!)!,
        rcpt: emails[19]!,
        status: '5.1.1',
        diagnostic: '550 5.1.1 unknown',
        messageId: msgId(emails[19]!),
      }),
    ),
    ok,
  );
  // not one of our addresses: refused at RCPT
  await assert.rejects(deliver(port, '', [`someone@${DOMAIN}`], 'Subject: x\r\n\r\nx\r\n'), /550/);
  // a person's mail to the mailto unsubscribe address of one recipient
  const request = [
    `From: ${leaving}`,
    `To: ${unsubscribeAt.get(leaving!)}`,
    'Subject: unsubscribe',
    '',
    'please',
    '',
  ].join('\r\n');
  assert.match(await deliver(port, leaving!, [unsubscribeAt.get(leaving!)!], request), ok);

  const subs = await server.db
    .selectFrom('subscribers')
    .select(['email', 'status'])
    .where('account_id', '=', accountId)
    .execute();
  const status = new Map(subs.map((s) => [s.email, s.status]));
  assert.equal(status.get(hard!), 'bounced');
  assert.equal(status.get(complaint!), 'complained');
  assert.equal(status.get(leaving!), 'unsubscribed');
  for (const e of [soft, policy, away, forged, replayed, emails[19]]) assert.equal(status.get(e!), 'active', e);
  assert.equal(subs.filter((s) => s.status !== 'active').length, 3);

  const rows = new Map(
    (
      await server.db
        .selectFrom('campaign_recipients')
        .select([
          'email',
          'feedback',
          'feedback_status',
          'feedback_detail',
          'soft_bounces',
          'bounced_at',
          'complained_at',
        ])
        .where('campaign_id', '=', sent.campaignId)
        .execute()
    ).map((r) => [r.email, r]),
  );
  assert.equal(rows.get(hard!)!.feedback, 'bounced');
  assert.equal(rows.get(hard!)!.feedback_status, '5.1.1');
  assert.match(rows.get(hard!)!.feedback_detail!, /User unknown/);
  assert.ok(rows.get(hard!)!.bounced_at);
  assert.equal(rows.get(soft!)!.feedback, 'soft_bounced');
  assert.equal(rows.get(soft!)!.soft_bounces, 1);
  assert.equal(rows.get(policy!)!.feedback, 'blocked');
  assert.equal(rows.get(policy!)!.feedback_status, '5.7.1');
  assert.equal(rows.get(complaint!)!.feedback, 'complained');
  assert.ok(rows.get(complaint!)!.complained_at);
  for (const e of [away, forged, replayed, emails[19]]) assert.equal(rows.get(e!)!.feedback, null, e);
  const streak = await server.db
    .selectFrom('soft_bounce_streaks')
    .select('count')
    .where('subscriber_id', '=', sent.subscriberIds.get(soft!)!)
    .executeTakeFirst();
  assert.equal(streak?.count, 1);

  // the same events as every other bounce path, naming the campaign
  const bounced = await eventsOfType(server.db, accountId, 'subscriber.bounced');
  assert.deepEqual(
    bounced.map((e) => e.data.subscriber.email),
    [hard],
  );
  assert.equal(bounced[0]!.data.campaign_id, sent.campaignId);
  const complained = await eventsOfType(server.db, accountId, 'subscriber.complained');
  assert.deepEqual(
    complained.map((e) => e.data.subscriber.email),
    [complaint],
  );
  const unsubscribed = await eventsOfType(server.db, accountId, 'subscriber.unsubscribed');
  assert.deepEqual(
    unsubscribed.map((e) => [e.data.subscriber.email, e.data.source]),
    [[leaving, 'unsubscribe_mail']],
  );

  // what was taken, and why the rest changed nothing
  const inbound = await server.db.selectFrom('inbound_mail').select(['outcome', 'reason', 'account_id']).execute();
  const outcomes = inbound.map((r) => r.outcome).sort();
  assert.deepEqual(outcomes, [
    'auto_reply',
    'blocked',
    'bounced',
    'complained',
    'ignored',
    'soft_bounced',
    'unmatched',
    'unsubscribed',
  ]);
  assert.match(inbound.find((r) => r.outcome === 'unmatched')!.reason!, /does not verify/);
  assert.equal(inbound.find((r) => r.outcome === 'unmatched')!.account_id, null);
  assert.match(inbound.find((r) => r.outcome === 'ignored')!.reason!, /another Message-ID/);

  // the same report again changes nothing more (relays retry)
  await deliver(
    port,
    '',
    [returnPath.get(soft!)!],
    dsn({
      to: returnPath.get(soft!)!,
      rcpt: soft!,
      status: '4.2.2',
      diagnostic: '452 4.2.2 Mailbox full',
      messageId: msgId(soft!),
    }),
  );
  const again = await server.db
    .selectFrom('campaign_recipients')
    .select('soft_bounces')
    .where('campaign_id', '=', sent.campaignId)
    .where('email', '=', soft!)
    .executeTakeFirstOrThrow();
  assert.equal(again.soft_bounces, 1);

  // the campaign report lists the late bounces and the complaint; Settings shows the setup
  const { client } = await signedIn(server, 'viewer', accountId);
  const late = await client.get(`/campaigns/${sent.campaignId}/late-feedback`);
  assert.equal(late.status, 200);
  assert.deepEqual(
    late.body.data.items.map((i: any) => [i.email, i.feedback, i.feedback_status]).sort(),
    [
      [complaint, 'complained', null],
      [hard, 'bounced', '5.1.1'],
      [policy, 'blocked', '5.7.1'],
      [soft, 'soft_bounced', '4.2.2'],
    ].sort(),
  );
  const setup = (await client.get('/bounces')).body.data;
  assert.equal(setup.return_path_domain, DOMAIN);
  assert.equal(setup.listener.listening, true);
  assert.equal(setup.unmatched, 1);
  assert.ok(setup.last_received_at);
  // another account sees none of this campaign's reports
  const other = await signedIn(server, 'owner');
  assert.deepEqual((await other.client.get(`/campaigns/${sent.campaignId}/late-feedback`)).body.data.items, []);
  // the operator reads the unmatched mail
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const unmatched: any = await (await fetch(`${server.url}/admin/v1/inbound/unmatched`, { headers: admin })).json();
  assert.equal(unmatched.data.unmatched.length, 1);
  assert.equal(unmatched.data.unmatched[0].rcpt_to, tampered);
  const message = await fetch(`${server.url}/admin/v1/inbound/unmatched/${unmatched.data.unmatched[0].id}/message`, {
    headers: admin,
  });
  assert.match(await message.text(), /Undelivered Mail Returned to Sender/);
});
