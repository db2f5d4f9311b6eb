// The `account` variable and the automatic footer (the sender's name and postal address, as a commercial
// email must show them), and the open pixel: an <img> only when the message has images of its own, a
// background otherwise, so a short text message does not become "image only" to spam filters.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { renderAccount } from '../../src/domain/accounts/profile.ts';
import { compileTemplate, renderMessage } from '../../src/mail/render.ts';

const sub = { id: '22222222-2222-4222-8222-222222222222', email: 'ada@example.com', first_name: 'Ada' };
const account = renderAccount({ name: 'Acme <Ltd>', postal_address: 'Acme Ltd,\n1 Main Street\n\nSpringfield' });
const tracking = { click: 'https://t/c/TOKEN', open: 'https://t/o/TOKEN' };

describe('the account variable and the footer', () => {
  test('{{ account.name }} and {{ account.postal_address }} render (escaped in HTML), the address on one line', () => {
    const m = renderMessage(
      {
        subject: 'From {{ account.name }}',
        html: '<p>{{ account.name }} — {{ account.postal_address }}</p><a href="{{ unsubscribe_url }}">bye</a>',
        text: '{{ account.postal_address }} {{ unsubscribe_url }}',
      },
      { subscriber: sub, unsubscribeUrl: 'https://u/t', account },
    );
    assert.equal(m.subject, 'From Acme <Ltd>');
    assert.match(m.html, /<p>Acme &lt;Ltd&gt; — Acme Ltd, 1 Main Street, Springfield<\/p>/);
    assert.equal(m.text, 'Acme Ltd, 1 Main Street, Springfield https://u/t\n');
  });

  test('the automatic footer shows the name, the address and the unsubscribe link, in HTML and in a given text part', () => {
    const m = renderMessage(
      { subject: 's', html: '<body><p>Hi</p></body>', text: 'Hi' },
      { subscriber: sub, unsubscribeUrl: 'https://u/t', account },
    );
    assert.match(
      m.html,
      /Acme &lt;Ltd&gt;<br>Acme Ltd, 1 Main Street, Springfield<br>You receive this email because you subscribed\. <a href="https:\/\/u\/t"[^>]*>Unsubscribe<\/a><\/p>\n<\/body>$/,
    );
    assert.equal(m.text, 'Hi\n\n--\nAcme <Ltd>\nAcme Ltd, 1 Main Street, Springfield\nUnsubscribe: https://u/t\n');
  });

  test('the derived text part carries the footer too; a template with its own unsubscribe link gets no footer', () => {
    const derived = renderMessage(
      { subject: 's', html: '<p>Hi</p>' },
      { subscriber: sub, unsubscribeUrl: 'https://u/t', account },
    );
    assert.match(derived.text, /Acme Ltd, 1 Main Street, Springfield/);
    const own = renderMessage(
      { subject: 's', html: '<p>Hi <a href="{{ unsubscribe_url }}">leave</a></p>' },
      { subscriber: sub, unsubscribeUrl: 'https://u/t', account },
    );
    assert.ok(!own.html.includes('Springfield'));
  });

  test('Liquid in the account name or address is text, never run', () => {
    const hostile = renderAccount({ name: '{{ subscriber.email }}', postal_address: '{% raw %}x' });
    const m = renderMessage(
      { subject: '{{ account.name }}', html: '<p>x</p>' },
      { subscriber: sub, unsubscribeUrl: 'https://u/t', account: hostile },
    );
    assert.equal(m.subject, '{{ subscriber.email }}');
    assert.match(m.html, /\{\{ subscriber\.email \}\}<br>\{% raw %\}x<br>/);
  });
});

describe('the open pixel', () => {
  test('a message without images: the pixel is a cell background (attribute, CSS and VML), no <img>', () => {
    const t = compileTemplate({ subject: 's', html: '<body><p>Short news.</p></body>' }, { opens: true });
    const m = renderMessage(t, { subscriber: sub, unsubscribeUrl: 'https://u/t', tracking, account });
    assert.ok(!/<img\b/i.test(m.html), m.html);
    assert.match(m.html, /background="https:\/\/t\/o\/TOKEN"/);
    assert.match(m.html, /background-image:url\('https:\/\/t\/o\/TOKEN'\)/);
    assert.match(m.html, /<v:fill type="frame" src="https:\/\/t\/o\/TOKEN" \/>/);
  });

  test('a message with images of its own: the classic 1×1 <img>', () => {
    const t = compileTemplate(
      { subject: 's', html: '<body><img src="https://cdn.example.com/logo.png" alt="Logo"><p>News.</p></body>' },
      { opens: true },
    );
    const m = renderMessage(t, { subscriber: sub, unsubscribeUrl: 'https://u/t', tracking, account });
    assert.match(m.html, /<img src="https:\/\/t\/o\/TOKEN" width="1" height="1"[^>]*><\/body>$/);
  });

  test('opens off: no pixel; clicks off: links stay as written', () => {
    const html = '<body><a href="https://a.test/1">1</a></body>';
    const noOpens = renderMessage(compileTemplate({ subject: 's', html }, { linkIndex: () => 0 }), {
      subscriber: sub,
      unsubscribeUrl: 'https://u/t',
      tracking,
    });
    assert.ok(!noOpens.html.includes('/t/o/'));
    assert.match(noOpens.html, /href="https:\/\/t\/c\/TOKEN\/0"/);
    const noClicks = renderMessage(compileTemplate({ subject: 's', html }, { opens: true }), {
      subscriber: sub,
      unsubscribeUrl: 'https://u/t',
      tracking,
    });
    assert.match(noClicks.html, /href="https:\/\/a\.test\/1"/);
    assert.ok(noClicks.html.includes('/t/o/TOKEN'));
  });
});
