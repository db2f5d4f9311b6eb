// The render pool: the same message as on the event loop, errors come back as the same kinds, and a task
// past its deadline is refused while the pool goes on serving the next ones.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compileMjml, MjmlError } from '../../src/mail/mjml.ts';
import { compileTemplate, renderMessage, TemplateError } from '../../src/mail/render.ts';
import { POOL_LIMITS, renderInPool } from '../../src/mail/renderPool.ts';

const context = {
  subscriber: { id: '00000000-0000-4000-8000-000000000001', email: 'ada@example.com', first_name: 'Ada' },
  unsubscribeUrl: 'https://example.com/u',
};
const template = {
  subject: 'Hi {{ subscriber.first_name }}',
  html: '<h1>Hello {{ subscriber.first_name | upcase }}</h1><p><a href="https://example.com/a">a</a></p>',
  preview_text: 'Spring',
};

describe('render pool', () => {
  test('a message rendered in the pool is the one rendered on the event loop', async () => {
    assert.deepEqual(await renderInPool(template, context), renderMessage(compileTemplate(template), context));
  });

  test('Liquid errors and shape limits come back as TemplateError naming the part', async () => {
    await assert.rejects(renderInPool({ subject: '{{ x | nope }}', html: '<p>ok</p>' }, context), (err: unknown) => {
      assert.ok(err instanceof TemplateError);
      assert.equal(err.problems[0]!.part, 'subject');
      return true;
    });
    await assert.rejects(
      renderInPool({ subject: 's', html: '<div>'.repeat(1_000) }, context),
      (err: unknown) => err instanceof TemplateError && /nested too deeply/.test(err.message),
    );
  });

  test('past its deadline a task is refused with the reason, and the pool serves the next task', async () => {
    const deadline = POOL_LIMITS.deadlineMs;
    POOL_LIMITS.deadlineMs = 1;
    try {
      await assert.rejects(
        renderInPool({ subject: 's', html: '<p>{{ subscriber.first_name }}</p>'.repeat(3_000) }, context),
        (err: unknown) =>
          err instanceof TemplateError && /Content too complex: processing it took longer than/.test(err.message),
      );
    } finally {
      POOL_LIMITS.deadlineMs = deadline;
    }
    assert.equal((await renderInPool(template, context)).subject, 'Hi Ada');
  });

  test('MJML compiles in the pool; a source past the limits is an MjmlError before MJML is loaded', async () => {
    assert.match(
      await compileMjml(
        '<mjml><mj-body><mj-section><mj-column><mj-text>Hi</mj-text></mj-column></mj-section></mj-body></mjml>',
      ),
      /Hi/,
    );
    await assert.rejects(
      compileMjml(`<mjml><mj-body>${'<mj-section><mj-column>'.repeat(500)}</mj-body></mjml>`),
      (err: unknown) => err instanceof MjmlError && /MJML nested too deeply/.test(err.message),
    );
    await assert.rejects(compileMjml('<p>no root</p>'), /MJML must start with an <mjml> root element/);
  });
});
