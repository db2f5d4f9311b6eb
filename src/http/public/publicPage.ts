// The look of every page a subscriber sees (the hosted form, its result pages, the unsubscribe pages):
// the dashboard's colours and type on one white card, inline CSS only (no external assets, no scripts),
// full width on a phone. Bodies are HTML the caller has escaped; the title is escaped here.
import { escapeHtml } from '../../domain/forms/markup.ts';

const CSS = `
*{box-sizing:border-box}
body{margin:0;padding:1rem;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f6f7f9;color:#1f2933}
main{max-width:30rem;margin:8vh auto 2rem;padding:2rem 1.75rem;background:#fff;border:1px solid #dde2e8;border-radius:8px;box-shadow:0 1px 2px rgba(16,24,40,.06)}
h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem}
p{margin:0 0 1rem}
strong{overflow-wrap:anywhere}
a{color:#166534}
.mg-from{color:#5f6b7a;font-size:.8rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;margin:0 0 .5rem}
.mg-note{color:#5f6b7a;font-size:.9rem;margin:1.25rem 0 0}
.mg-icon{display:flex;width:2.75rem;height:2.75rem;border-radius:50%;align-items:center;justify-content:center;background:#e7f3ec;color:#166534;font-size:1.35rem;font-weight:700;margin:0 0 1rem}
.mg-icon-warn{background:#fff7e6;color:#9a3412}
.mg-field{margin:0 0 1rem}
.mg-field label{display:block;font-weight:600;margin-bottom:.3rem}
.mg-check label{display:inline;font-weight:400}
input[type=text],input[type=email],input[type=tel],input[type=number],input[type=date]{width:100%;padding:.55rem .65rem;border:1px solid #b8c1cc;border-radius:6px;font:inherit;background:#fff;color:inherit}
input[aria-invalid=true]{border-color:#b42318}
input:focus-visible,button:focus-visible{outline:3px solid #3b82f6;outline-offset:2px}
.mg-error{color:#b42318;font-size:.9rem;margin:.3rem 0 0}
.mg-alert{border:1px solid #f3b8b2;background:#fdf0ef;color:#b42318;padding:.6rem .8rem;border-radius:6px}
button{display:inline-block;padding:.65rem 1.3rem;border:0;border-radius:6px;background:#166534;color:#fff;font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#14532d}
@media (max-width:480px){body{padding:0;background:#fff}main{margin:0;border:0;border-radius:0;box-shadow:none;padding:1.5rem 1.25rem}button{width:100%}}
`;

/**
 * A whole page: doctype, viewport for phones, no indexing, the styles, and the body in the card. `extraCss`
 * is CSS the caller built from validated values only (a form design's #rrggbb colours).
 */
export function publicPage(title: string, body: string, extraCss = ''): string {
  return (
    `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<meta name="robots" content="noindex">\n<title>${escapeHtml(title)}</title>\n<style>${CSS}${extraCss}</style>\n</head>\n` +
    `<body>\n<main>\n${body}\n</main>\n</body>\n</html>\n`
  );
}

/** The round mark above a result's heading: ✓ for done, ✉ for "check your inbox", ! for a problem. */
export function icon(kind: 'done' | 'mail' | 'problem'): string {
  const [char, extra] = kind === 'done' ? ['✓', ''] : kind === 'mail' ? ['✉', ''] : ['!', ' mg-icon-warn'];
  return `<div class="mg-icon${extra}" aria-hidden="true">${char}</div>`;
}
