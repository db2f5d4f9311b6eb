// A block document → MJML → HTML. MJML does what email HTML needs and is easy to get wrong by hand:
// nested tables Outlook lays out, a full <html>/<body>, inline CSS, columns that stack on phones. Each
// block becomes one MJML element (columns one mj-section of 2–3 mj-columns); every colour is set on both
// the background and the text, with `color-scheme: light`, so a client's dark mode either leaves the
// email alone or inverts both together — never dark text on a darkened background. Liquid (merge tags)
// is left in the output as written, to be filled at send time like any other format's.
import { compileMjml } from '../../../mail/mjml.ts';
import type { Block, BlockDocument, BlockStyle, LeafBlock } from './schema.ts';
import { sanitizeRawHtml, sanitizeRichText } from './sanitize.ts';

type DocStyle = BlockDocument['style'];

/** The document as an MJML source (what compileMjml turns into the email's HTML). */
export function toMjml(doc: BlockDocument): string {
  const s = doc.style;
  const body = doc.blocks.map((b) => section(b, s)).join('\n');
  return (
    `<mjml>\n<mj-head>\n` +
    `<mj-attributes><mj-all font-family="${attr(s.fontFamily)}" /><mj-text color="${s.textColor}" font-size="16px" line-height="1.55" padding="8px 24px" /></mj-attributes>\n` +
    // no inline="inline" stylesheet: inlining CSS is most of MJML's time, so the renderer writes inline styles itself
    `<mj-style>:root { color-scheme: light; supported-color-schemes: light; } a { color: ${s.linkColor}; }</mj-style>\n` +
    `<mj-raw><meta name="color-scheme" content="light"><meta name="supported-color-schemes" content="light"></mj-raw>\n` +
    `</mj-head>\n` +
    `<mj-body width="${s.width}px" background-color="${s.background}">\n${body}\n</mj-body>\n</mjml>`
  );
}

/** The document's email HTML: a full document, table layout, inline styles. */
export async function renderDocument(doc: BlockDocument): Promise<string> {
  return compileMjml(toMjml(doc), true);
}

function section(b: Block, s: DocStyle): string {
  const bg = b.style?.background ?? s.contentBackground;
  if (b.type === 'columns') {
    const width = `${(100 / b.columns.length).toFixed(4)}%`;
    const cols = b.columns
      .map((col) => `<mj-column width="${width}">${col.map((c) => element(c, s)).join('')}</mj-column>`)
      .join('');
    return `<mj-section background-color="${bg}" padding="${padding(b.style, [8, 12, 8, 12])}">${cols}</mj-section>`;
  }
  return `<mj-section background-color="${bg}" padding="0"><mj-column>${element(b, s)}</mj-column></mj-section>`;
}

/** One block inside a column. */
function element(b: LeafBlock, s: DocStyle): string {
  const st = b.style ?? {};
  const common = (defaults: [number, number, number, number]) =>
    [
      `padding="${padding(st, defaults)}"`,
      st.background && `container-background-color="${st.background}"`,
      st.fontFamily && `font-family="${attr(st.fontFamily)}"`,
    ]
      .filter(Boolean)
      .join(' ');
  const textAttrs = (defaults: [number, number, number, number], size?: number, align = 'left') =>
    [
      common(defaults),
      `align="${st.align ?? align}"`,
      `color="${st.color ?? s.textColor}"`,
      (st.fontSize ?? size) && `font-size="${st.fontSize ?? size}px"`,
    ]
      .filter(Boolean)
      .join(' ');
  switch (b.type) {
    case 'heading': {
      const size = [0, 30, 24, 19][b.level]!;
      return `<mj-text ${textAttrs([16, 24, 8, 24], size)} line-height="1.25"><h${b.level} style="margin:0;font-size:${st.fontSize ?? size}px;font-weight:700">${text(b.text)}</h${b.level}></mj-text>`;
    }
    case 'text':
      return `<mj-text ${textAttrs([8, 24, 8, 24])}>${sanitizeRichText(b.html, s.linkColor)}</mj-text>`;
    case 'html':
      return `<mj-text ${textAttrs([8, 24, 8, 24])}>${sanitizeRawHtml(b.html)}</mj-text>`;
    case 'image': {
      const width = b.width ? ` width="${b.width}px"` : '';
      const href = b.href ? ` href="${attr(b.href)}"` : '';
      return `<mj-image ${common([8, 24, 8, 24])} align="${st.align ?? 'center'}" src="${attr(b.src)}" alt="${attr(b.alt)}"${href}${width} />`;
    }
    case 'button': {
      const bg = b.color ?? s.linkColor;
      return (
        `<mj-button ${common([12, 24, 12, 24])} align="${st.align ?? 'center'}" href="${attr(b.href)}" ` +
        `background-color="${bg}" color="${b.textColor ?? '#ffffff'}" font-size="${st.fontSize ?? 16}px" font-weight="600" ` +
        `inner-padding="12px 24px" border-radius="6px">${text(b.text)}</mj-button>`
      );
    }
    case 'divider':
      return `<mj-divider ${common([12, 24, 12, 24])} border-color="${b.color ?? '#e5e7eb'}" border-width="${b.thickness ?? 1}px" />`;
    case 'spacer':
      return `<mj-spacer height="${b.height}px"${st.background ? ` container-background-color="${st.background}"` : ''} />`;
    case 'social': {
      // plain text links: no icons fetched from a third party's server in every recipient's inbox
      const color = st.color ?? s.linkColor;
      const links = b.links
        .map(
          (l) =>
            `<a href="${attr(l.url)}" style="color:${color};text-decoration:none;font-weight:600">${SOCIAL_LABELS[l.network]}</a>`,
        )
        .join(' &nbsp;·&nbsp; ');
      return `<mj-text ${textAttrs([12, 24, 12, 24], 14, 'center')}>${links}</mj-text>`;
    }
    case 'footer': {
      const color = st.color ?? '#6b7280';
      const own = b.text ? `<p style="margin:0 0 8px">${text(b.text)}</p>` : '';
      return (
        `<mj-text ${common([24, 24, 24, 24])} align="${st.align ?? 'center'}" color="${color}" font-size="${st.fontSize ?? 12}px" line-height="1.5">` +
        own +
        `<p style="margin:0 0 4px">{{ account.name }}</p>` +
        `<p style="margin:0 0 8px">{{ account.postal_address }}</p>` +
        `<p style="margin:0">You receive this email because you subscribed. ` +
        `<a href="{{ unsubscribe_url }}" style="color:${color};text-decoration:underline">Unsubscribe</a></p>` +
        `</mj-text>`
      );
    }
  }
}

const SOCIAL_LABELS: Record<string, string> = {
  facebook: 'Facebook',
  x: 'X',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  website: 'Website',
};

function padding(st: BlockStyle | undefined, defaults: [number, number, number, number]): string {
  return (st?.padding ?? defaults).map((p) => `${p}px`).join(' ');
}

/** Text content: markup escaped; quotes kept, so Liquid's `default: "there"` still reads as Liquid. */
function text(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * An attribute value: escaped for a double-quoted attribute. Inside Liquid output tags double quotes
 * become single ones (Liquid reads both), so `{{ x | default: "y" }}` in a link survives escaping.
 */
function attr(s: string): string {
  return s
    .replace(/\{\{[^}]*\}\}/g, (liquid) => liquid.replace(/"/g, "'"))
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}
