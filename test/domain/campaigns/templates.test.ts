// A Liquid error as the domain reports it: one Validation naming each field (subject, content_html,
// content_text — the names campaigns and the automations' send_email step share), first problem first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileChecked } from '../../../src/domain/campaigns/templates.ts';
import { Validation } from '../../../src/domain/errors.ts';

test('every part with a Liquid error becomes its field, with "Template error: " and Liquid\'s message', () => {
  assert.throws(
    () => compileChecked({ subject: '{{ x | nope }}', html: '{% if a %}' }),
    (err: any) => {
      assert.ok(err instanceof Validation);
      assert.deepEqual(Object.keys(err.fields), ['subject', 'content_html']);
      assert.match(err.fields.content_html[0], /^Template error: /);
      assert.match(err.message, /^subject: Template error: undefined filter: nope/);
      return true;
    },
  );
  assert.throws(
    () => compileChecked({ subject: 's', html: '<p>ok</p>', text: '{{ x | nope }}' }),
    (err: any) => {
      assert.deepEqual(Object.keys(err.fields), ['content_text']);
      assert.match(err.message, /^content_text: Template error: undefined filter: nope/);
      return true;
    },
  );
});

test('a valid template compiles as it is', () => {
  const t = compileChecked({ subject: 'Hi {{ subscriber.first_name }}', html: '<p>Hello</p>' });
  assert.ok(t.subject.length > 0);
});

test('a template that fails only when rendered (too slow, too large, a file include) is refused when checked, in under a second', () => {
  const hostile: [Record<string, string>, string, RegExp][] = [
    [{ html: "{% include '/etc/passwd' %}" }, 'content_html', /cannot include other files/],
    [{ html: '{% for i in (1..100000000) %}x{% endfor %}' }, 'content_html', /Template too large/],
    [
      {
        html: '{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}',
      },
      'content_html',
      /Template too slow/,
    ],
    [{ subject: '{% for i in (1..100000000) %}x{% endfor %}', html: '<p>ok</p>' }, 'subject', /Template too large/],
    [{ html: '<p>ok</p>', text: "{% render 'x' %}" }, 'content_text', /cannot include other files/],
  ];
  for (const [t, field, message] of hostile) {
    const started = performance.now();
    assert.throws(
      () => compileChecked({ subject: 's', html: '', ...t }),
      (err: any) => {
        assert.ok(err instanceof Validation);
        assert.deepEqual(Object.keys(err.fields), [field]);
        assert.match(err.message, new RegExp(`^${field}: Template error: `));
        assert.match(err.message, message);
        return true;
      },
    );
    assert.ok(performance.now() - started < 1000, `${field} took ${performance.now() - started} ms`);
  }
});
