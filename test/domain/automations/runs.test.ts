// Automation runs (runs.ts) on the real server: runs started from the events log, steps executed
// durably, emails delivered to a real SMTP sink. AUTOMATION_TIME_SCALE=86400 turns a day into a second,
// so the welcome series' 2-day delay takes 2 s.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import * as accounts from '../../../src/domain/accounts/accounts.ts';
import * as apiKeys from '../../../src/domain/accounts/apiKeys.ts';
import * as runs from '../../../src/domain/automations/runs.ts';
import { recordEvent } from '../../../src/domain/events/log.ts';
import { start } from '../../../src/main.ts';
import { automationTrackToken } from '../../../src/mail/tracking.ts';
import { createTransport } from '../../../src/mail/transport.ts';
import { Pacing } from '../../../src/domain/delivery/pacing.ts';
import { automationServer, createAutomation, uniqueEmail } from '../../support/automations.ts';
import { openTestDb } from '../../support/db.ts';
import { client, restClient, TEST_ENV, type ApiClient } from '../../support/server.ts';
import { until } from '../../support/until.ts';

// addresses starting with soft- get one 451 first, hard- always 550 (the retry and failure tests)
const {
  s,
  sink,
  env: ENV,
  mailTo,
} = await automationServer(
  { SEND_RETRY_BASE_MS: 300 },
  {
    reply: (rcpt, attempt) =>
      rcpt.startsWith('soft-') && attempt === 1
        ? [451, 'Try again later']
        : rcpt.startsWith('hard-')
          ? [550, 'No such user']
          : undefined,
  },
);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const welcomeSteps = [
  {
    type: 'send_email',
    subject: 'Welcome, {{ subscriber.first_name | default: "friend" }}',
    content_html: '<p>Hello {{ subscriber.first_name }}!</p>',
    from_name: 'Grove',
    from_email: 'hello@grove.example',
  },
  { type: 'delay', amount: 2, unit: 'days' },
  { type: 'send_email', subject: 'Two days in', content_html: '<p>How is it going?</p>' },
];

// for tests that must act while a run waits: a delay long enough that load cannot make it pass first
const longDelaySteps = [
  welcomeSteps[0],
  { type: 'delay', amount: 30, unit: 'days' },
  { type: 'send_email', subject: 'A month in', content_html: '<p>Still here?</p>' },
];

/**
 * Moves the automation's waiting runs past their delay. It first waits for every active run to have
 * entered its delay ("waiting" in the history): the email can reach the sink before the run commits that
 * step, and moving next_run_at earlier than that would be overwritten by the delay itself.
 */
async function passDelay(automationId: string) {
  await until('the runs waiting in their delay', async () => {
    const runs = await s.db
      .selectFrom('automation_runs')
      .select('history')
      .where('automation_id', '=', automationId)
      .where('status', '=', 'active')
      .execute();
    return runs.every((r) => r.history.at(-1)?.result === 'waiting');
  });
  await s.db
    .updateTable('automation_runs')
    .set({ next_run_at: new Date() })
    .where('automation_id', '=', automationId)
    .where('status', '=', 'active')
    .execute();
}

async function runsOf(api: ApiClient, automationId: string, status?: string) {
  const r = await api.get(`/automations/${automationId}/activity${status ? `?status=${status}` : ''}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.runs as any[];
}

describe('Automation › welcome series (join group → email → 2-day delay → email)', () => {
  test('runs end to end into the SMTP sink, with activity, stats and automation.completed', async () => {
    const { accountId, api } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'Newsletter' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'joined_group', group_id: group.id },
      steps: welcomeSteps,
    });
    const email = uniqueEmail('welcome');
    const started = Date.now();
    const sub = (await api.post('/subscribers', { email, first_name: 'Ada', group_ids: [group.id] })).body.data;

    await until('the welcome email', () => mailTo(email).length === 1);
    const first = mailTo(email)[0]!.parsed!;
    assert.equal(first.subject, 'Welcome, Ada');
    assert.match(first.html as string, /Hello Ada!/);
    assert.deepEqual(
      first.from?.value.map((a) => [a.name, a.address]),
      [['Grove', 'hello@grove.example']],
    );
    const listUnsubscribe = first.headerLines.find((l) => l.key === 'list-unsubscribe')?.line.replace(/\r?\n\s+/g, ' ');
    assert.match(
      listUnsubscribe ?? '',
      /^List-Unsubscribe: <http:\/\/[^>]+\/u\/[\w-]+>$/i,
      'unsubscribe header like campaigns',
    );
    assert.match(mailTo(email)[0]!.raw.toString(), /^List-Unsubscribe-Post: List-Unsubscribe=One-Click/m);
    assert.match(first.html as string, /href="http:\/\/[^"]+\/u\/[\w-]+"/, 'and a link, appended to the template');
    assert.equal(first.headers.get('x-mailgrove-automation'), auto.id);

    // the sink has the email a moment before the run commits its advance past the send and the delay
    const waiting = await until('the run waiting on its delay', async () =>
      (await runsOf(api, auto.id)).find((r) => r.current_step?.path === '2'),
    );
    assert.equal(waiting.status, 'active');
    assert.deepEqual(waiting.current_step, { path: '2', type: 'send_email' });
    assert.ok(Date.parse(waiting.next_run_at) - started >= 1500, 'the 2-day delay is time-scaled to ~2 s, not skipped');
    assert.deepEqual(
      waiting.history.map((h: any) => [h.type, h.result]),
      [
        ['trigger', 'started'],
        ['send_email', 'sent'],
        ['delay', 'waiting'],
      ],
    );

    await until('the second email', () => mailTo(email).length === 2);
    assert.ok(Date.now() - started >= 1900, 'second email only after the delay');
    assert.equal(mailTo(email)[1]!.parsed!.subject, 'Two days in');
    const done = await until('completed', async () => (await runsOf(api, auto.id, 'completed'))[0]);
    assert.equal(done.subscriber.id, sub.id);
    assert.equal(done.current_step, null);
    assert.equal(done.emails_sent, 2);
    assert.deepEqual(
      done.history.map((h: any) => h.result),
      ['started', 'sent', 'waiting', 'sent', 'completed'],
    );

    const got = (await api.get(`/automations/${auto.id}`)).body.data;
    assert.deepEqual(got.stats, {
      started: 1,
      active: 0,
      completed: 1,
      canceled: 0,
      failed: 0,
      emails_sent: 2,
      opens: 0,
      unique_opens: 0,
      clicks: 0,
      unique_clicks: 0,
      unsubscribes: 0,
      bounces: 0,
      complaints: 0,
      soft_bounces: 0,
    });
    const events = await s.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('account_id', '=', accountId)
      .where('type', 'in', ['automation.completed', 'email.sent'])
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      events.map((e) => e.type),
      ['email.sent', 'email.sent', 'automation.completed'],
    );
    assert.equal(events[0]!.data.automation_id, auto.id);
    assert.deepEqual((events[2]!.data as any).automation, { id: auto.id, name: 'Automation' });
    await sleep(600);
    assert.equal(mailTo(email).length, 2, 'nothing is sent twice');
  });

  test("an unsubscribed subscriber's run stops (canceled) before the next email — via the email's own unsubscribe link", async () => {
    const { api } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'News' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'joined_group', group_id: group.id },
      steps: longDelaySteps,
    });
    const email = uniqueEmail('leaver');
    await api.post('/subscribers', { email, group_ids: [group.id] });
    await until('the welcome email', () => mailTo(email).length === 1);
    const link = /href="(http[^"]+\/u\/[^"]+)"/.exec(mailTo(email)[0]!.parsed!.html as string)![1]!;
    const res = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    await passDelay(auto.id);
    const canceled = await until('the run canceled', async () => (await runsOf(api, auto.id, 'canceled'))[0]);
    assert.deepEqual(canceled.history.at(-1), {
      ...canceled.history.at(-1),
      type: 'send_email',
      result: 'canceled',
      reason: 'subscriber unsubscribed',
    });
    await sleep(500);
    assert.equal(mailTo(email).length, 1, 'the second email is never sent');
    assert.equal((await api.get(`/automations/${auto.id}`)).body.data.stats.canceled, 1);
  });

  test("a bounced subscriber's run stops (canceled) before the next email — via a real bounce report for the first one", async () => {
    const { accountId, api } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'Bouncy' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'joined_group', group_id: group.id },
      steps: longDelaySteps,
    });
    const email = uniqueEmail('bouncer');
    await api.post('/subscribers', { email, group_ids: [group.id] });
    await until('the welcome email', () => mailTo(email).length === 1);
    const messageId = mailTo(email)[0]!.parsed!.messageId!.replace(/^<|>$/g, '');
    const { bounce_secret } = await s.db
      .selectFrom('accounts')
      .select('bounce_secret')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const res = await client(s.url).post(`/hooks/bounces/generic/${bounce_secret}`, [
      { email, type: 'hard', message_id: messageId },
    ]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await passDelay(auto.id);
    const canceled = await until('the run canceled', async () => (await runsOf(api, auto.id, 'canceled'))[0]);
    assert.deepEqual(canceled.history.at(-1), {
      ...canceled.history.at(-1),
      type: 'send_email',
      result: 'canceled',
      reason: 'subscriber bounced',
    });
    await sleep(500);
    assert.equal(mailTo(email).length, 1, 'the second email is never sent');
  });

  test('disabling cancels waiting runs; deleting stops them too (an enabled one on the same group goes on)', async () => {
    const { api } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'Both' })).body.data;
    const trigger = { type: 'joined_group', group_id: group.id };
    const disabled = await createAutomation(api, { name: 'to disable', trigger, steps: longDelaySteps });
    const deleted = await createAutomation(api, { name: 'to delete', trigger, steps: longDelaySteps });
    const control = await createAutomation(api, { name: 'left on', trigger, steps: longDelaySteps });
    const email = uniqueEmail('stopped');
    await api.post('/subscribers', { email, group_ids: [group.id] });
    await until('three welcome emails', () => mailTo(email).length === 3);
    await until('all three waiting', async () => {
      const waiting = await s.db
        .selectFrom('automation_runs')
        .select('id')
        .where('current_step', '=', '2')
        .where('automation_id', 'in', [disabled.id, deleted.id, control.id])
        .execute();
      return waiting.length === 3;
    });
    const off = await api.post(`/automations/${disabled.id}/disable`);
    assert.equal(off.body.data.enabled, false);
    const run = (await runsOf(api, disabled.id))[0];
    assert.equal(run.status, 'canceled');
    assert.equal(run.history.at(-1).reason, 'automation disabled');
    assert.equal((await api.delete(`/automations/${deleted.id}`)).status, 200);
    assert.equal((await api.get(`/automations/${deleted.id}/activity`)).status, 404);
    for (const id of [disabled.id, deleted.id, control.id]) await passDelay(id);
    await until("the control automation's second email", () => mailTo(email).length === 4);
    await sleep(800);
    assert.deepEqual(
      mailTo(email)
        .map((m) => m.parsed!.subject)
        .sort(),
      ['A month in', 'Welcome, friend', 'Welcome, friend', 'Welcome, friend'],
      'no second email from the disabled or the deleted one',
    );
    // enabling again does not replay the join that happened before
    await api.post(`/automations/${disabled.id}/enable`);
    await sleep(1200);
    assert.equal((await runsOf(api, disabled.id)).length, 1);
  });
});

describe('Automation › steps', () => {
  test('a condition branches both ways (segment rule tree on the subscriber); add/remove group and update_field apply', async () => {
    const { api } = await s.restAccount();
    await api.post('/fields', { key: 'plan', name: 'Plan', type: 'text' });
    const pro = (await api.post('/groups', { name: 'Pro' })).body.data;
    const free = (await api.post('/groups', { name: 'Free' })).body.data;
    const trial = (await api.post('/groups', { name: 'Trial' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'subscriber_created', source: 'api' },
      steps: [
        {
          type: 'condition',
          filter: { match: 'all', rules: [{ field: 'custom_fields.plan', operator: 'eq', value: 'pro' }] },
          then: [
            { type: 'add_to_group', group_id: pro.id },
            { type: 'remove_from_group', group_id: trial.id },
          ],
          else: [{ type: 'add_to_group', group_id: free.id }],
        },
        { type: 'update_field', field: 'last_name', value: 'Onboarded' },
      ],
    });
    const a = (
      await api.post('/subscribers', {
        email: uniqueEmail('pro'),
        custom_fields: { plan: 'pro' },
        group_ids: [trial.id],
      })
    ).body.data;
    const b = (await api.post('/subscribers', { email: uniqueEmail('free'), custom_fields: { plan: 'basic' } })).body
      .data;
    await until('both runs completed', async () => (await runsOf(api, auto.id, 'completed')).length === 2);
    const groupsOf = async (id: string) =>
      ((await api.get(`/subscribers/${id}`)).body.data.groups as any[]).map((g) => g.name).sort();
    assert.deepEqual(await groupsOf(a.id), ['Pro']);
    assert.deepEqual(await groupsOf(b.id), ['Free']);
    assert.equal((await api.get(`/subscribers/${a.id}`)).body.data.last_name, 'Onboarded');
    const byId = new Map(
      (await runsOf(api, auto.id)).map((r: any) => [
        r.subscriber.id,
        r.history.map((h: any) => `${h.step ?? '-'}:${h.result}`),
      ]),
    );
    assert.deepEqual(byId.get(a.id), [
      '-:started',
      '0:then',
      '0.then.0:added',
      '0.then.1:removed',
      '1:updated',
      '-:completed',
    ]);
    assert.deepEqual(byId.get(b.id), ['-:started', '0:else', '0.else.0:added', '1:updated', '-:completed']);
  });

  test('a group step whose group was deleted since is skipped, and the run goes on', async () => {
    const { api } = await s.restAccount();
    const gone = (await api.post('/groups', { name: 'Gone' })).body.data;
    const kept = (await api.post('/groups', { name: 'Kept' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'subscriber_created', source: 'api' },
      steps: [
        { type: 'add_to_group', group_id: gone.id },
        { type: 'remove_from_group', group_id: kept.id },
        { type: 'add_to_group', group_id: kept.id },
        { type: 'add_to_group', group_id: kept.id },
      ],
    });
    assert.equal((await api.delete(`/groups/${gone.id}`)).status, 200);
    await api.post('/subscribers', { email: uniqueEmail('skip') });
    await until('the run completed', async () => (await runsOf(api, auto.id, 'completed')).length === 1);
    const [run] = await runsOf(api, auto.id);
    assert.deepEqual(
      run.history.map((h: any) => `${h.step ?? '-'}:${h.result}`),
      ['-:started', '0:skipped: group not found', '1:not a member', '2:added', '3:already a member', '-:completed'],
    );
  });

  test('a run found mid-send after a crash is marked interrupted and never re-sent (at-most-once)', async () => {
    const { accountId, api } = await s.restAccount();
    const auto = await createAutomation(api, {
      enabled: true,
      trigger: { type: 'form_submitted', form_id: (await api.post('/forms', { name: 'F' })).body.data.id },
      steps: [
        { type: 'send_email', subject: 'First', content_html: '<p>1</p>' },
        { type: 'send_email', subject: 'Second', content_html: '<p>2</p>' },
      ],
    });
    const email = uniqueEmail('crash');
    const sub = (await api.post('/subscribers', { email })).body.data;
    // as a crashed worker leaves it: the first email marked 'sending', lease long gone
    const run = await s.db
      .insertInto('automation_runs')
      .values({
        account_id: accountId,
        automation_id: auto.id,
        subscriber_id: sub.id,
        trigger_event_id: crypto.randomUUID(),
        current_step: '0',
        step_state: 'sending',
        step_attempts: 1,
        next_run_at: new Date(),
        locked_until: new Date(Date.now() + 60_000),
        history: '[]',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    // and its tracked email row, written with the 'sending' mark
    const tracked = await s.db
      .insertInto('automation_emails')
      .values({
        account_id: accountId,
        automation_id: auto.id,
        run_id: run.id,
        step: '0',
        subscriber_id: sub.id,
        message_id: 'm-crash',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const transport = createTransport(s.config, s.db);
    const log = { info() {}, warn() {}, error() {} };
    const pacing = new Pacing({ db: s.db, config: s.config, log }, async () => []);
    await runs.advance({ db: s.db, config: s.config, transport, pacing }, run.id);
    await transport.close();
    await until('the second email', () => mailTo(email).length === 1);
    assert.equal(mailTo(email)[0]!.parsed!.subject, 'Second', 'the interrupted first email is not sent again');
    const [r] = await runsOf(api, auto.id);
    assert.deepEqual(
      r.history.map((h: any) => `${h.step ?? '-'}:${h.result}`),
      ['0:interrupted', '1:sent', '-:completed'],
    );
    const emails = await s.db
      .selectFrom('automation_emails')
      .select(['id', 'step', 'state'])
      .where('run_id', '=', run.id)
      .orderBy('step')
      .execute();
    assert.deepEqual(
      emails.map((e) => [e.step, e.state]),
      [
        ['0', 'interrupted'],
        ['1', 'sent'],
      ],
    );
    assert.equal(emails[0]!.id, tracked.id);
  });
});

describe('Automation › send_email delivery', () => {
  test('an SMTP 4xx is retried with backoff and then delivered, with the same tracking token; a 5xx fails the run with the reply', async () => {
    const { api } = await s.restAccount();
    const auto = await createAutomation(api, {
      trigger: { type: 'subscriber_created', source: 'api' },
      steps: [
        { type: 'send_email', subject: 'Hi', content_html: '<p><a href="https://grove.example/x">x</a></p>' },
        { type: 'add_to_group', group_id: (await api.post('/groups', { name: 'After' })).body.data.id },
      ],
    });
    const soft = uniqueEmail('soft');
    const hard = uniqueEmail('hard');
    const softSub = (await api.post('/subscribers', { email: soft })).body.data;
    await api.post('/subscribers', { email: hard });
    await until('the retried email delivered', () => mailTo(soft).length === 1);
    assert.equal(sink.rcptAttempts.get(soft.toLowerCase()), 2, 'refused once, accepted on the retry');
    const runs = await until('both runs finished', async () => {
      const all = await runsOf(api, auto.id);
      return all.length === 2 && all.every((r: any) => r.status !== 'active') && all;
    });
    const bySub = new Map(runs.map((r: any) => [r.subscriber.email, r]));
    assert.deepEqual(
      bySub.get(soft)!.history.map((h: any) => h.result),
      ['started', 'retrying', 'sent', 'added', 'completed'],
    );
    assert.match(bySub.get(soft)!.history[1].error, /451/);
    const failed = bySub.get(hard)!;
    assert.equal(failed.status, 'failed');
    assert.deepEqual([failed.history.at(-1).result, failed.history.length], ['failed', 2]);
    assert.match(failed.history.at(-1).error, /550/);
    // a bare 550 is about the mailbox: the campaign rule bounces the subscriber and credits the email
    const hardSub = await s.db
      .selectFrom('subscribers')
      .select(['id', 'status'])
      .where('email', '=', hard)
      .executeTakeFirstOrThrow();
    assert.equal(hardSub.status, 'bounced');
    const bouncedEvents = await s.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('subscriber_id', '=', hardSub.id)
      .where('type', 'in', ['email.bounced', 'subscriber.bounced'])
      .orderBy('seq')
      .execute();
    assert.deepEqual(
      bouncedEvents.map((e) => [e.type, (e.data as any).automation_id, (e.data as any).step]),
      [
        ['subscriber.bounced', auto.id, '0'],
        ['email.bounced', auto.id, '0'],
      ],
    );
    // one tracked email per run and step: the retry reused the row, so the delivered token is the one first written
    const rows = await s.db
      .selectFrom('automation_emails')
      .select(['id', 'subscriber_id', 'state'])
      .where('automation_id', '=', auto.id)
      .execute();
    assert.deepEqual(rows.map((r) => r.state).sort(), ['failed', 'sent']);
    const delivered = rows.find((r) => r.subscriber_id === softSub.id)!;
    assert.ok(
      (mailTo(soft)[0]!.parsed!.html as string).includes(`/t/o/${automationTrackToken(s.config.secret, delivered.id)}`),
    );
    const stats = (await api.get(`/automations/${auto.id}`)).body.data.stats;
    assert.deepEqual([stats.emails_sent, stats.completed, stats.failed], [1, 1, 1]);
  });
});

describe('Automation › triggers', () => {
  test('form_submitted starts a run from a real form submission; subscriber_created honours its source filter', async () => {
    const { api } = await s.restAccount();
    const form = (await api.post('/forms', { name: 'Signup' })).body.data;
    const viaForm = await createAutomation(api, {
      trigger: { type: 'form_submitted', form_id: form.id },
      steps: [{ type: 'send_email', subject: 'Thanks for signing up', content_html: '<p>Hi</p>' }],
    });
    const viaMcpOnly = await createAutomation(api, {
      trigger: { type: 'subscriber_created', source: 'mcp' },
      steps: [{ type: 'update_field', field: 'first_name', value: 'X' }],
    });
    const email = uniqueEmail('form');
    const res = await client(s.url).post(`/f/${form.id}`, { email }, { accept: 'application/json' });
    assert.ok(res.status < 300, JSON.stringify(res.body));
    await until('the form automation email', () => mailTo(email).length === 1);
    assert.equal(mailTo(email)[0]!.parsed!.subject, 'Thanks for signing up');
    await api.post('/subscribers', { email: uniqueEmail('api') });
    await sleep(1200);
    assert.equal((await runsOf(api, viaMcpOnly.id)).length, 0, 'source form/api does not match source mcp');
    assert.equal((await runsOf(api, viaForm.id)).length, 1);
  });

  test('campaign_opened / link_clicked: one run per subscriber and campaign, however often they open', async () => {
    const { accountId, api } = await s.restAccount();
    const opened = await createAutomation(api, {
      trigger: { type: 'campaign_opened' },
      steps: [{ type: 'update_field', field: 'first_name', value: 'Opener' }],
    });
    const clicked = await createAutomation(api, {
      trigger: { type: 'link_clicked', url: 'https://grove.example/pricing' },
      steps: [{ type: 'update_field', field: 'last_name', value: 'Clicker' }],
    });
    const sub = (await api.post('/subscribers', { email: uniqueEmail('opens') })).body.data;
    const campaignId = crypto.randomUUID();
    // email.opened / email.clicked are written by the tracking endpoints; recorded here as they write them
    const data = { campaign_id: campaignId, subscriber: { id: sub.id, email: sub.email }, message_id: 'm1' };
    await recordEvent(s.db, accountId, 'email.opened', data, sub.id);
    await recordEvent(s.db, accountId, 'email.opened', data, sub.id);
    await recordEvent(s.db, accountId, 'email.clicked', { ...data, url: 'https://grove.example/other' }, sub.id);
    await recordEvent(s.db, accountId, 'email.clicked', { ...data, url: 'https://grove.example/pricing' }, sub.id);
    await until(
      'both completed',
      async () =>
        (await runsOf(api, opened.id, 'completed')).length === 1 &&
        (await runsOf(api, clicked.id, 'completed')).length === 1,
    );
    await sleep(800);
    assert.equal((await runsOf(api, opened.id)).length, 1, 'the second open starts nothing');
    assert.equal((await runsOf(api, clicked.id)).length, 1, 'only the matching url');
    const got = (await api.get(`/subscribers/${sub.id}`)).body.data;
    assert.deepEqual([got.first_name, got.last_name], ['Opener', 'Clicker']);
  });

  test("date_anniversary: the daily scan starts a run for subscribers whose date field has today's month and day", async () => {
    const { api } = await s.restAccount();
    await api.post('/fields', { key: 'birthday', name: 'Birthday', type: 'date' });
    const today = new Date();
    const mmdd = today.toISOString().slice(5, 10);
    const other = new Date(today.getTime() + 40 * 86_400_000).toISOString().slice(5, 10);
    const hit = uniqueEmail('birthday');
    const miss = uniqueEmail('other-day');
    await api.post('/subscribers', { email: hit, custom_fields: { birthday: `1990-${mmdd}` } });
    await api.post('/subscribers', { email: miss, custom_fields: { birthday: `1990-${other}` } });
    await api.post('/subscribers', { email: uniqueEmail('no-birthday') });
    const auto = await createAutomation(api, {
      trigger: { type: 'date_anniversary', field: 'birthday' },
      steps: [{ type: 'send_email', subject: 'Happy birthday!', content_html: '<p>🎂</p>' }],
    });
    await until('the birthday email', () => mailTo(hit).length === 1);
    await sleep(1200);
    assert.equal(mailTo(miss).length, 0);
    assert.equal((await runsOf(api, auto.id)).length, 1, 'scanned once today');
    const bad = await api.post('/automations', {
      name: 'x',
      trigger: { type: 'date_anniversary', field: 'nope' },
      steps: [{ type: 'delay', amount: 1, unit: 'days' }],
    });
    assert.deepEqual(bad.body.data, { 'trigger.field': ['Unknown custom field: nope'] });
  });
});

describe('Automation › durability', () => {
  test('a restart in the middle of a delay continues correctly: the next email once, after the delay', async () => {
    const testDb = await openTestDb();
    const config = loadConfig({ ...TEST_ENV, ...ENV }, {});
    let running = await start(config, { handle: testDb.handle, queueSchema: testDb.queueSchema });
    after(async () => {
      await running.stop();
      await testDb.destroy();
    });
    const db = testDb.handle.db;
    const acc = await accounts.create(db, { name: 'Restart' }, 100);
    const api = restClient(running.url, (await apiKeys.create(db, acc.id, { name: 'k', scopes: ['*'] })).key);
    const group = (await api.post('/groups', { name: 'G' })).body.data;
    // 5 days (5 s): margin for a slow stop under load, so the stop surely lands inside the delay
    const steps = [welcomeSteps[0], { type: 'delay', amount: 5, unit: 'days' }, welcomeSteps[2]];
    const auto = await createAutomation(api, { trigger: { type: 'joined_group', group_id: group.id }, steps });
    const email = uniqueEmail('restart');
    await api.post('/subscribers', { email, group_ids: [group.id] });
    await until('the welcome email', () => mailTo(email).length === 1);
    await until(
      'waiting on the delay',
      async () =>
        (
          await db
            .selectFrom('automation_runs')
            .select('current_step')
            .where('automation_id', '=', auto.id)
            .executeTakeFirst()
        )?.current_step === '2',
    );
    await running.stop(); // mid-delay: the process is gone while the delay passes
    const waiting = await db
      .selectFrom('automation_runs')
      .select(['status', 'current_step', 'next_run_at'])
      .where('automation_id', '=', auto.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual([waiting.status, waiting.current_step], ['active', '2']);
    assert.ok(new Date(waiting.next_run_at!).getTime() > Date.now(), 'stopped inside the delay');
    await sleep(new Date(waiting.next_run_at!).getTime() - Date.now() + 300);
    assert.equal(mailTo(email).length, 1, 'nothing sent while stopped');
    running = await start(config, { handle: testDb.handle, queueSchema: testDb.queueSchema });
    await until('the second email after the restart', () => mailTo(email).length === 2);
    assert.equal(mailTo(email)[1]!.parsed!.subject, 'Two days in');
    const done = await until('completed', async () => {
      const r = await db
        .selectFrom('automation_runs')
        .select(['status', 'history'])
        .where('automation_id', '=', auto.id)
        .executeTakeFirst();
      return r?.status === 'completed' && r;
    });
    assert.deepEqual(
      done.history.map((h) => h.result),
      ['started', 'sent', 'waiting', 'sent', 'completed'],
      'no step repeated',
    );
    await sleep(800);
    assert.equal(mailTo(email).length, 2, 'each email once');
  });
});
