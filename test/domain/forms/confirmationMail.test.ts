// A form's own confirmation mail: subject and content (HTML or a block document) written by its author,
// with {{ confirm_url }} as the link; refused without that link or with hostile content; sent to a
// signup with their name filled in and no unsubscribe footer, and the built-in mail restored by null.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Validation } from '../../../src/domain/errors.ts';
import { previewConfirmation } from '../../../src/domain/forms/confirmationMail.ts';
import { client, startServer } from '../../support/server.ts';

const s = await startServer({ after });

const document = {
  version: 1,
  blocks: [
    { id: 'h', type: 'heading', level: 1, text: 'One click, {{ subscriber.first_name | default: "friend" }}' },
    { id: 'b', type: 'button', text: 'Yes, subscribe me', href: '{{ confirm_url }}' },
  ],
};
const mailsTo = (to: string) =>
  s.db.selectFrom('outbox').selectAll().where('to_addr', '=', to).orderBy('created_at').execute();

describe('form confirmation mail', () => {
  test('a block confirmation mail is stored, returned, and sent with the link and the name', async () => {
    const { api } = await s.restAccount();
    const created = await api.post('/forms', {
      name: 'F',
      double_opt_in: true,
      fields: [{ key: 'first_name' }],
      confirmation_subject: 'Confirm, {{ subscriber.first_name | default: "friend" }}',
      content_format: 'blocks',
      content_source: document,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.data.content_format, 'blocks');
    assert.deepEqual(JSON.parse(created.body.data.content_source), document);
    const f = created.body.data;
    const res = await client(s.url).post(
      `/f/${f.id}`,
      { email: 'zoe@example.com', first_name: 'Zoe' },
      { accept: 'application/json' },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [mail] = await mailsTo('zoe@example.com');
    assert.equal(mail!.subject, 'Confirm, Zoe');
    assert.match(mail!.html!, /One click, Zoe/);
    assert.match(mail!.html!, /<html[\s\S]*<body/);
    const link = /href="(http:\/\/[^"]+\/f\/confirm\/[^"]+)"/.exec(mail!.html!)?.[1];
    assert.ok(link, 'the button carries the confirmation link');
    assert.doesNotMatch(mail!.html!, /Unsubscribe<\/a>/);
    assert.equal((await fetch(link!)).status, 200);

    const reset = await api.put(`/forms/${f.id}`, { content_source: null, confirmation_subject: null });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    assert.equal(reset.body.data.content_source, null);
    await client(s.url).post(`/f/${f.id}`, { email: 'yan@example.com' }, { accept: 'application/json' });
    assert.equal((await mailsTo('yan@example.com'))[0]!.subject, 'Please confirm your subscription');

    // a subject alone: the built-in mail goes out under it
    await api.put(`/forms/${f.id}`, { confirmation_subject: 'One more step, {{ subscriber.email }}' });
    await client(s.url).post(`/f/${f.id}`, { email: 'ida@example.com' }, { accept: 'application/json' });
    const [ida] = await mailsTo('ida@example.com');
    assert.equal(ida!.subject, 'One more step, ida@example.com');
    assert.match(ida!.html!, /Confirm my subscription/);
  });

  test('the preview renders unsaved settings for a sample signup, the built-in mail without content', async () => {
    const { accountId } = await s.restAccount();
    const custom = await previewConfirmation(s.db, accountId, 'https://mail.example.test', {
      confirmation_subject: 'Confirm, {{ subscriber.first_name | default: "friend" }}',
      content_format: 'blocks',
      content_source: document,
    });
    assert.equal(custom.subject, 'Confirm, Ada');
    assert.match(custom.html, /One click, Ada/);
    assert.match(custom.html, /href="https:\/\/mail\.example\.test\/f\/confirm\/sample-link"/);
    const builtIn = await previewConfirmation(s.db, accountId, 'https://mail.example.test', {});
    assert.equal(builtIn.subject, 'Please confirm your subscription');
    assert.match(builtIn.html, /Confirm my subscription/);
    await assert.rejects(
      previewConfirmation(s.db, accountId, 'https://x.test', {
        content_format: 'html',
        content_source: '<p>no link</p>',
      }),
      (e: any) => e instanceof Validation && /confirm_url/.test(JSON.stringify(e.fields)),
    );
  });

  test('without {{ confirm_url }}, with a script or bad Liquid: a 400 naming the field, nothing changed', async () => {
    const { api } = await s.restAccount();
    const f = (await api.post('/forms', { name: 'F', double_opt_in: true })).body.data;
    for (const [body, field, pattern] of [
      [{ content_format: 'html', content_source: '<p>no link</p>' }, 'content_source', /confirm_url/],
      [
        { content_format: 'html', content_source: '<p>{{ confirm_url }}</p>', confirmation_subject: '{% if %}' },
        'confirmation_subject',
        /Template error/,
      ],
      [
        {
          content_format: 'blocks',
          content_source: {
            version: 1,
            blocks: [{ id: 't', type: 'text', html: '<script>x</script>{{ confirm_url }}' }],
          },
        },
        'content_source',
        /script/,
      ],
    ] as const) {
      const res = await api.put(`/forms/${f.id}`, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(JSON.stringify(res.body.data?.[field] ?? res.body), pattern, JSON.stringify(res.body));
    }
    assert.equal((await api.get(`/forms/${f.id}`)).body.data.content_source, null);
  });
});
