// rendering, tokens and headers as pure functions: Liquid variables, HTML escaping of subscriber
// data, the derived text part, the appended unsubscribe footer, save-time template errors; signed tokens
// that reject tampering and cross-purpose use; List-Unsubscribe (+ mailto) and the sender fallbacks; hostile
// templates (file includes, endless loops, output bombs) refused with the bound they cross.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { bulkHeaders, resolveSender } from '../../src/mail/headers.ts';
import { compileTemplate, renderMessage, TemplateError } from '../../src/mail/render.ts';
import { clickUrl, extractLinks, openUrl, readTrackToken } from '../../src/mail/tracking.ts';
import { readUnsubscribeToken, unsubscribeToken, unsubscribeUrl } from '../../src/mail/unsubscribe.ts';

const config = {
  ...loadConfig({ PUBLIC_URL: 'https://mail.example.com', MAIL_FROM: 'Grove <no-reply@grove.test>' }, {}),
  secret: 's3cret',
};
const A = '11111111-1111-4111-8111-111111111111';
const S = '22222222-2222-4222-8222-222222222222';
const C = '33333333-3333-4333-8333-333333333333';
const sub = {
  id: S,
  email: 'ada@example.com',
  first_name: '<b>Ada</b>',
  last_name: null,
  custom_fields: { company: 'A & B' },
};

describe('renderMessage', () => {
  test('variables: subscriber.*, custom_fields, campaign.name, unsubscribe_url, default filter', () => {
    const t = compileTemplate({
      subject: 'Hi {{ subscriber.last_name | default: "there" }}',
      html: '<p>{{ subscriber.email }} at {{ subscriber.custom_fields.company }} / {{ campaign.name }}</p><a href="{{ unsubscribe_url }}">out</a>',
    });
    const m = renderMessage(t, {
      subscriber: sub,
      campaign: { id: C, name: 'Spring' },
      unsubscribeUrl: 'https://u/x?a=1&b=2',
    });
    assert.equal(m.subject, 'Hi there');
    assert.equal(m.html, '<p>ada@example.com at A &amp; B / Spring</p><a href="https://u/x?a=1&amp;b=2">out</a>');
    assert.match(m.text, /ada@example\.com at A & B \/ Spring/);
  });

  test('subscriber data is HTML-escaped in the body, not in subject or text; the footer is appended when there is no unsubscribe_url', () => {
    const m = renderMessage(
      {
        subject: 'For {{ subscriber.first_name }}',
        html: '<html><body><h1>Hello {{ subscriber.first_name }}</h1></body></html>',
      },
      { subscriber: sub, unsubscribeUrl: 'https://u/t' },
    );
    assert.match(m.html, /<h1>Hello &lt;b&gt;Ada&lt;\/b&gt;<\/h1>/);
    assert.equal(m.subject, 'For <b>Ada</b>');
    assert.match(m.text, /^Hello <b>Ada<\/b>/, 'headings keep their case and variables survive the text conversion');
    assert.match(m.html, /<a href="https:\/\/u\/t"[^>]*>Unsubscribe<\/a><\/p>\n<\/body><\/html>$/);
    assert.match(m.text, /Unsubscribe \[https:\/\/u\/t\]/);
  });

  test('content_text is used as given (with its own footer); preview_text becomes a hidden preheader; the subject is one line', () => {
    const m = renderMessage(
      {
        subject: 'A\r\nB',
        html: '<body><p>x</p></body>',
        text: 'Plain {{ subscriber.email }}',
        preview_text: 'Peek <here>',
      },
      { subscriber: sub, unsubscribeUrl: 'https://u/t' },
    );
    assert.equal(m.subject, 'A B');
    assert.match(m.text, /^Plain ada@example\.com\n\n--\n\n\nUnsubscribe: https:\/\/u\/t\n$/);
    assert.match(m.html, /^<body><div style="display:none[^"]*">Peek &lt;here&gt;<\/div><p>x<\/p>/);
  });

  test('tracking: the pixel goes before </body>; rewriteLinks maps each href', () => {
    const m = renderMessage(
      {
        subject: 's',
        html: '<body><a href="https://a.test/1">1</a><a href=\'https://b.test\'>2</a>{{ unsubscribe_url }}</body>',
      },
      {
        subscriber: sub,
        unsubscribeUrl: 'https://u/t',
        trackOpen: 'https://t/o/x',
        rewriteLinks: (u) => (u === 'https://a.test/1' ? 'https://t/c/1?q=a&b' : u),
      },
    );
    assert.match(m.html, /<a href="https:\/\/t\/c\/1\?q=a&amp;b">1<\/a><a href='https:\/\/b\.test'>2<\/a>/);
    assert.match(m.html, /<img src="https:\/\/t\/o\/x"[^>]*><\/body>$/);
  });

  test('compile-time tracking: known links become {{ tracking.click }}/<index>, the pixel goes before </body>, preview_text is never Liquid', () => {
    const t = compileTemplate(
      {
        subject: 's',
        html: '<body><a href="https://a.test/1">1</a><a href="https://other.test">2</a></body>',
        preview_text: '{{ subscriber.email }} & more',
      },
      { linkIndex: (u) => (u === 'https://a.test/1' ? 4 : undefined), opens: true },
    );
    const m = renderMessage(t, {
      subscriber: sub,
      unsubscribeUrl: 'https://u/t',
      tracking: { click: 'https://t/c/TOKEN', open: 'https://t/o/TOKEN' },
    });
    assert.match(m.html, /<a href="https:\/\/t\/c\/TOKEN\/4">1<\/a><a href="https:\/\/other\.test">2<\/a>/);
    assert.match(m.html, /<td [^>]*background="https:\/\/t\/o\/TOKEN"[^>]*>.*<\/table><\/body>$/s);
    assert.ok(!/<img\b/.test(m.html), 'a message without images of its own gets no <img> pixel');
    assert.match(m.html, />\{\{ subscriber\.email \}\} &amp; more<\/div>/);
    assert.ok(!m.text.includes('more'), 'the preheader is not part of the text');
  });

  test('save-time errors: unknown filter, unclosed tag, file includes → TemplateError naming each part', () => {
    assert.throws(
      () => compileTemplate({ subject: '{{ x | nope }}', html: '{% if a %}' }),
      (err: any) => {
        assert.ok(err instanceof TemplateError);
        assert.deepEqual(
          err.problems.map((p: TemplateError['problems'][number]) => p.part),
          ['subject', 'html'],
        );
        assert.match(err.message, /^subject: undefined filter: nope/);
        return true;
      },
    );
    assert.throws(() =>
      renderMessage({ subject: 's', html: '{% include "/etc/passwd" %}' }, { subscriber: sub, unsubscribeUrl: 'u' }),
    );
  });
});

describe('Signed tokens', () => {
  test('unsubscribe tokens round-trip (with campaign or automation source) and reject tampering, other secrets and other purposes', () => {
    const t = unsubscribeToken('s3cret', A, S, { campaign_id: C });
    assert.deepEqual(readUnsubscribeToken('s3cret', t), { account_id: A, subscriber_id: S, campaign_id: C });
    assert.deepEqual(readUnsubscribeToken('s3cret', unsubscribeToken('s3cret', A, S)), {
      account_id: A,
      subscriber_id: S,
    });
    assert.equal(readUnsubscribeToken('other', t), undefined);
    assert.equal(readUnsubscribeToken('s3cret', t.slice(0, 20) + (t[20] === 'A' ? 'B' : 'A') + t.slice(21)), undefined);
    const open = openUrl(config, C, S).split('/').pop()!;
    assert.equal(readUnsubscribeToken('s3cret', open), undefined, 'a tracking token is no unsubscribe token');
    assert.deepEqual(readTrackToken('s3cret', open), { campaign_id: C, subscriber_id: S });
    assert.equal(readTrackToken('s3cret', t), undefined, 'an unsubscribe token is no tracking token');
    assert.equal(
      clickUrl(config, C, S, 513),
      `https://mail.example.com/t/c/${open}/513`,
      'one token per recipient, the link is an index',
    );
    assert.match(unsubscribeUrl(config, A, S), /^https:\/\/mail\.example\.com\/u\/[A-Za-z0-9_-]{40,}$/);
  });

  test('extractLinks: literal http(s) hrefs once each; Liquid, mailto and anchors are not tracked', () => {
    const html =
      '<a href="https://a.test/x?y=1&amp;z=2">1</a><a href="https://a.test/x?y=1&amp;z=2">again</a><a href="mailto:x@y">m</a><a href="#top">t</a><a href="{{ unsubscribe_url }}">u</a><a href="https://p.test/?e={{ subscriber.email }}">p</a><A HREF=\'http://b.test\'>b</A>';
    assert.deepEqual(extractLinks(html), ['https://a.test/x?y=1&z=2', 'http://b.test']);
  });
});

describe('Headers and sender', () => {
  test('List-Unsubscribe (+ mailto when configured), List-Unsubscribe-Post One-Click, Precedence bulk', () => {
    assert.deepEqual(bulkHeaders(config, 'https://mail.example.com/u/TOKEN'), {
      'List-Unsubscribe': '<https://mail.example.com/u/TOKEN>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      Precedence: 'bulk',
    });
    const withMailto = bulkHeaders(
      { ...config, UNSUBSCRIBE_MAILTO: 'unsub@grove.test' },
      'https://mail.example.com/u/TOKEN',
    );
    assert.equal(
      withMailto['List-Unsubscribe'],
      '<https://mail.example.com/u/TOKEN>, <mailto:unsub@grove.test?subject=unsubscribe%20TOKEN>',
    );
  });

  test('From/Reply-To: the message, then the account defaults, then MAIL_FROM', () => {
    assert.deepEqual(resolveSender(config, { from_name: 'News', from_email: 'n@a.test', reply_to: 'r@a.test' }, {}), {
      from: 'News <n@a.test>',
      replyTo: 'r@a.test',
    });
    assert.deepEqual(
      resolveSender(
        config,
        {},
        { default_from_name: 'Acme, Inc.', default_from_email: 'd@a.test', default_reply_to: 'dr@a.test' },
      ),
      { from: '"Acme, Inc." <d@a.test>', replyTo: 'dr@a.test' },
    );
    assert.deepEqual(resolveSender(config, { from_name: 'Only name' }, {}), {
      from: 'Only name <no-reply@grove.test>',
      replyTo: undefined,
    });
    assert.deepEqual(resolveSender(config, {}, {}), { from: 'Grove <no-reply@grove.test>', replyTo: undefined });
  });
});

describe('Fast template path (byte-identical to liquidjs where it applies)', async () => {
  const { Liquid } = await import('liquidjs');
  const { compileFast } = await import('../../src/mail/fastTemplate.ts');
  const html = new Liquid({ strictFilters: true, ownPropertyOnly: true, outputEscape: 'escape' });
  const text = new Liquid({ strictFilters: true, ownPropertyOnly: true });

  test('outputs and default: the same string as liquidjs for strings, numbers, booleans, nil, empty, special characters', () => {
    const sources = [
      'Hi {{ subscriber.first_name }}!',
      '<p>{{ subscriber.first_name | default: "there" }} / {{subscriber.last_name|default:\'you\'}}</p>',
      '{{ subscriber.custom_fields.n }}-{{ subscriber.custom_fields.b }}-{{ subscriber.custom_fields.z | default: "zero?" }}-{{ missing.path }}',
      'no outputs at all <b>&amp;</b>',
      '{{ subscriber.custom_fields.flag | default: "off" }} {{ subscriber.custom_fields.nothing | default: "was empty" }}',
    ];
    const values = ['Ada', `<O'Brien & "Co">`, '', null, undefined];
    for (const source of sources) {
      for (const first_name of values) {
        const scope = {
          subscriber: {
            first_name,
            last_name: first_name,
            custom_fields: { n: 42, b: true, z: 0, flag: false, nothing: '' },
          },
        };
        for (const [engine, escape] of [
          [html, true],
          [text, false],
        ] as const) {
          const fast = compileFast(source, escape);
          assert.ok(fast, source);
          assert.equal(
            fast(scope),
            engine.parseAndRenderSync(source, scope),
            `${source} with ${first_name} (escape ${escape})`,
          );
        }
      }
    }
  });

  test('falls back to liquidjs for tags, other filters, whitespace control, drops and non-scalar values', () => {
    for (const source of [
      '{% if a %}x{% endif %}',
      '{{ a | upcase }}',
      '{{- a -}}',
      '{{ a.size }}',
      '{{ a["b"] }}',
      '{{ true }}',
      'x {{ a',
    ]) {
      assert.equal(compileFast(source, true), undefined, source);
    }
    const f = compileFast('{{ a }}', true)!;
    assert.equal(f({ a: ['x'] }), undefined);
    assert.equal(f({ a: { b: 1 } }), undefined);
    const rendered = renderMessage(
      { subject: '{{ subscriber.custom_fields.tags }}', html: '<p>{{ subscriber.custom_fields.tags }}</p>' },
      { subscriber: { ...sub, custom_fields: { tags: ['a', 'b'] } }, unsubscribeUrl: 'u' },
    );
    assert.equal(rendered.subject, 'ab', 'liquidjs prints the array as it always did');
  });
});

describe('Hostile templates: no file access, bounded time and size', () => {
  const ctx = { subscriber: sub, unsubscribeUrl: 'u' };
  const renderFails = (html: string, message: RegExp) => {
    const t = compileTemplate({ subject: 's', html });
    const started = performance.now();
    assert.throws(
      () => renderMessage(t, ctx),
      (err: any) => err instanceof TemplateError && err.problems[0].part === 'html' && message.test(err.message),
    );
    return performance.now() - started;
  };

  test('include, render and layout of any path are refused when the template is parsed', () => {
    for (const source of [
      "{% include '/etc/passwd' %}",
      "{% include '../package.json' %}",
      "{% include 'package' %}",
      '{% include subscriber.email %}',
      "{% render 'x' %}",
      "{% layout 'x' %}hi",
      "{% liquid\n include 'x' %}",
    ]) {
      assert.throws(
        () => compileTemplate({ subject: 's', html: source }),
        (err: any) =>
          err instanceof TemplateError && /is not available: a template cannot include other files/.test(err.message),
        source,
      );
    }
  });

  test('a loop too long, nested loops, captured and appended doubling fail one render, fast, with the bound named', () => {
    const elapsed = [
      renderFails('{% for i in (1..100000000) %}x{% endfor %}', /Template too large/),
      renderFails(
        '{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}x{% endfor %}{% endfor %}{% endfor %}',
        /Template too slow: a message must render within 200 ms/,
      ),
      renderFails(
        "{% assign s = 'x' %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s }}",
        /Template too large: a message may produce or handle at most 5,000,000 characters/,
      ),
      renderFails(
        "{% assign s = 'xx' %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}",
        /Template too large/,
      ),
      renderFails(`{% for i in (1..100000) %}${'y'.repeat(1000)}{% endfor %}`, /Template too large/),
    ];
    for (const ms of elapsed) assert.ok(ms < 1000, `took ${ms} ms`);
  });

  test('more Liquid markup than the parser handles quickly is refused before parsing; over-long sources too', () => {
    const started = performance.now();
    assert.throws(
      () => compileTemplate({ subject: 's', html: '{{ a }}'.repeat(200_000) }),
      /html: Template too complex: a part may hold at most 5,000 Liquid tags and outputs/,
    );
    assert.throws(() => compileTemplate({ subject: 's', html: 'a'.repeat(1_200_000) }), /html: parse length limit/);
    assert.ok(performance.now() - started < 1000);
  });

  test('a full newsletter (loops, filters, a capture, 60 KB) renders far inside the bounds', () => {
    const item =
      '<tr><td><h2>{{ forloop.index }}. {{ subscriber.first_name | upcase }}</h2><p>{{ subscriber.custom_fields.company | default: "you" }} ' +
      'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p><a href="https://example.com/a">Read</a></td></tr>';
    const html =
      '{% capture greeting %}Dear {{ subscriber.first_name }},{% endcapture %}<html><body><p>{{ greeting }}</p><table>' +
      '{% for i in (1..200) %}' +
      item +
      '{% endfor %}</table>' +
      '<p>{{ "now" | date: "%Y" }}</p>'.repeat(50) +
      'x'.repeat(50_000) +
      '</body></html>';
    const t = compileTemplate({ subject: 'News for {{ subscriber.first_name | default: "you" }}', html });
    renderMessage(t, ctx); // the first render also warms up the JIT; a send renders thousands
    const started = performance.now();
    const m = renderMessage(t, ctx);
    const ms = performance.now() - started;
    assert.match(m.html, /200\. &lt;B&gt;ADA&lt;\/B&gt;/);
    assert.ok(m.html.length > 60_000 && m.html.length < 200_000, `${m.html.length} characters`);
    assert.ok(ms < 100, `rendered in ${ms} ms`);
  });
});
