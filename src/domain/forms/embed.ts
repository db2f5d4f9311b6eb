// The pop-up script a site includes with one tag (/f/<slug or id>/embed.js): it opens the hosted form in
// a frame, as a centred pop-up or a corner slide-in, after a delay, at a scroll depth or on exit intent,
// once per browser tab. The form itself stays on this instance's page (its escaping, its strict CSP), so
// nothing the form's author typed ever reaches the host page's DOM: the script builds its few elements
// with createElement and sets only the frame's address and a label as text. No third-party code.
import { resolved } from './design.ts';
import type { FormLike } from './markup.ts';

export function popupScript(form: FormLike, publicUrl: string): string {
  const design = resolved(form.design, form.name);
  const config = {
    id: form.id,
    url: `${publicUrl}/f/${form.slug ?? form.id}?embed=1`,
    title: design.heading,
    style: design.popup.style,
    trigger: design.popup.trigger,
    delay: design.popup.delay_seconds,
    scroll: design.popup.scroll_percent,
    background: design.colors.background,
  };
  // JSON is a JavaScript literal; "<" escaped all the same, should the script ever be inlined into HTML
  const literal = JSON.stringify(config).replace(/</g, '\\u003c');
  return `/* Mailgrove pop-up form */
(function () {
  var c = ${literal};
  var key = 'mailgrove-popup-' + c.id;
  if (window[key]) return;
  window[key] = true;
  try { if (window.sessionStorage.getItem(key)) return; } catch (e) {}
  var shown = false;
  function css(el, rules) { for (var k in rules) el.style[k] = rules[k]; }
  function open() {
    if (shown || !document.body) return;
    shown = true;
    try { window.sessionStorage.setItem(key, '1'); } catch (e) {}
    var popup = c.style === 'popup';
    var wrap = document.createElement('div');
    wrap.setAttribute('role', 'dialog');
    wrap.setAttribute('aria-modal', popup ? 'true' : 'false');
    wrap.setAttribute('aria-label', c.title);
    wrap.setAttribute('data-mailgrove-popup', c.id);
    css(wrap, popup
      ? { position: 'fixed', inset: '0', background: 'rgba(15,23,42,.55)', display: 'flex', alignItems: 'center', justifyContent: 'center', zIndex: '2147483000', padding: '1rem' }
      : { position: 'fixed', right: '1rem', bottom: '1rem', zIndex: '2147483000', maxWidth: 'calc(100vw - 2rem)' });
    var box = document.createElement('div');
    css(box, { position: 'relative', width: popup ? 'min(26rem, 100%)' : '22rem', maxWidth: '100%', height: popup ? 'min(36rem, calc(100vh - 2rem))' : 'min(32rem, calc(100vh - 2rem))', background: c.background, borderRadius: '8px', overflow: 'hidden', boxShadow: '0 12px 32px rgba(15,23,42,.3)' });
    var frame = document.createElement('iframe');
    frame.src = c.url;
    frame.title = c.title;
    css(frame, { width: '100%', height: '100%', border: '0', display: 'block' });
    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\\u00d7';
    close.setAttribute('aria-label', 'Close');
    css(close, { position: 'absolute', top: '.25rem', right: '.25rem', width: '2.25rem', height: '2.25rem', border: '0', borderRadius: '50%', background: 'rgba(255,255,255,.9)', color: '#1f2933', font: '1.5rem/1 system-ui, sans-serif', cursor: 'pointer' });
    function shut() { if (wrap.parentNode) wrap.parentNode.removeChild(wrap); document.removeEventListener('keydown', onKey); }
    function onKey(e) { if (e.key === 'Escape') shut(); }
    close.addEventListener('click', shut);
    if (popup) wrap.addEventListener('click', function (e) { if (e.target === wrap) shut(); });
    document.addEventListener('keydown', onKey);
    box.appendChild(frame);
    box.appendChild(close);
    wrap.appendChild(box);
    document.body.appendChild(wrap);
    close.focus();
  }
  if (c.trigger === 'scroll') {
    var onScroll = function () {
      var h = document.documentElement;
      var depth = ((h.scrollTop || document.body.scrollTop) + window.innerHeight) / Math.max(1, h.scrollHeight) * 100;
      if (depth >= c.scroll) { window.removeEventListener('scroll', onScroll); open(); }
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    onScroll();
  } else if (c.trigger === 'exit') {
    document.addEventListener('mouseout', function (e) { if (!e.relatedTarget && e.clientY <= 0) open(); });
    // phones have no pointer leaving the window: the delay opens it there
    if (window.matchMedia && window.matchMedia('(hover: none)').matches) setTimeout(open, c.delay * 1000);
  } else {
    setTimeout(open, c.delay * 1000);
  }
})();
`;
}
