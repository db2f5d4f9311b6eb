// send_email steps written as a source: a block document (or MJML, or HTML) rendered to content_html on
// save, errors named by the step's content_source; and every automation email goes out as a whole
// document with <html> and <body>, a fragment written as content_html too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { automationServer, createAutomation, uniqueEmail } from '../../support/automations.ts';
import { until } from '../../support/until.ts';

const { s, mailTo } = await automationServer({}, { parse: true });

const document = {
  version: 1,
  blocks: [
    { id: 'h', type: 'heading', level: 1, text: 'Welcome {{ subscriber.first_name | default: "friend" }}' },
    { id: 'b', type: 'button', text: 'Start', href: 'https://example.org/start' },
    { id: 'f', type: 'footer' },
  ],
};

describe('automation send_email steps with blocks', () => {
  test('a block step is rendered on save, returned with its source, and sent as a full document', async () => {
    const { api } = await s.restAccount();
    const group = (await api.post('/groups', { name: 'G' })).body.data;
    const auto = await createAutomation(api, {
      trigger: { type: 'joined_group', group_id: group.id },
      steps: [
        { type: 'send_email', subject: 'Hi', content_format: 'blocks', content_source: document },
        {
          type: 'send_email',
          subject: 'Fragment',
          content_html: '<p>Just a fragment, {{ subscriber.first_name }}</p>',
        },
      ],
    });
    const got = (await api.get(`/automations/${auto.id}`)).body.data;
    const step = got.steps[0];
    assert.equal(step.content_format, 'blocks');
    assert.deepEqual(JSON.parse(step.content_source), document);
    assert.match(step.content_html, /^<!doctype html>/i);

    const email = uniqueEmail('blocks');
    await api.post('/subscribers', { email, first_name: 'Ada', group_ids: [group.id] });
    await until('both emails', () => mailTo(email).length === 2);
    const [blocks, fragment] = ['Hi', 'Fragment'].map(
      (subj) => mailTo(email).find((m) => m.parsed!.subject === subj)!.parsed!,
    );
    assert.match(String(blocks!.html), /Welcome Ada/);
    assert.match(String(blocks!.html), /<html[\s\S]*<body/);
    assert.match(String(blocks!.text), /Welcome Ada/);
    assert.match(
      String(fragment!.html),
      /^<!doctype html><html>[\s\S]*<body[^>]*>[\s\S]*Just a fragment, Ada[\s\S]*<\/body><\/html>/,
    );
  });

  test('a hostile block step is a 400 naming steps.N.content_source; nothing is stored', async () => {
    const { api, accountId } = await s.restAccount();
    const bad = await api.post('/automations', {
      name: 'Bad',
      trigger: { type: 'subscriber_created' },
      steps: [
        { type: 'delay', amount: 1, unit: 'days' },
        {
          type: 'send_email',
          subject: 'x',
          content_format: 'blocks',
          content_source: { version: 1, blocks: [{ id: 't', type: 'text', html: '<img src=x onerror=alert(1)>' }] },
        },
      ],
    });
    assert.equal(bad.status, 400, JSON.stringify(bad.body));
    assert.match(JSON.stringify(bad.body), /steps\.1\.content_source/);
    assert.match(JSON.stringify(bad.body), /event handler/);
    const missing = await api.post('/automations', {
      name: 'X',
      trigger: { type: 'subscriber_created' },
      steps: [{ type: 'send_email', subject: 'x' }],
    });
    assert.equal(missing.status, 400);
    const rows = await s.db.selectFrom('automations').select('id').where('account_id', '=', accountId).execute();
    assert.equal(rows.length, 0);
  });
});
