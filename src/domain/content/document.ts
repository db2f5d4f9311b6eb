// An email's HTML as a whole document. HTML written as a fragment ("<p>Hi</p>") is sent inside a
// minimal document — doctype, charset, viewport, a body with its colours set and a light colour scheme
// declared — so clients that expect <html>/<body> (and their dark modes) see one. A full document, as
// MJML and block documents produce, is sent as it is.
const FULL = /<html[\s>]/i;

export function emailDocument(html: string): string {
  if (FULL.test(html)) return html;
  return (
    '<!doctype html><html><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    '<meta name="color-scheme" content="light"><meta name="supported-color-schemes" content="light">' +
    '</head><body style="margin:0;padding:16px;background-color:#ffffff;color:#1f2937;' +
    'font-family:Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5">' +
    html +
    '</body></html>'
  );
}
