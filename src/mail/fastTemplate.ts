// A fast path for the templates almost every campaign uses: literal text plus `{{ a.b.c }}` and
// `{{ a.b | default: "x" }}` outputs, no tags. Compiled to a list of literals and property paths, rendered by
// plain concatenation — about ten times cheaper than liquidjs's generator-based renderer, which was the
// largest per-message cost of sending after SMTP itself. Anything else (tags, other filters, whitespace
// control, non-scalar values) returns undefined and the caller renders with liquidjs, which also remains the
// validator at save time. Output is byte-identical to liquidjs for the cases handled (see render tests).

type Part = string | { path: string[]; fallback?: string };

export type FastTemplate = (scope: Record<string, unknown>) => string | undefined;

const OUTPUT = /\{\{(.*?)\}\}/gs;
const EXPRESSION =
  /^\s*([A-Za-z_]\w*(?:\.[A-Za-z_][\w-]*)*)\s*(?:\|\s*default\s*:\s*(?:"([^"\\{}]*)"|'([^'\\{}]*)')\s*)?$/;

// literals and the drop properties liquidjs resolves itself (`email.size`, `list.first`)
const LIQUID_SPECIAL = new Set(['nil', 'null', 'true', 'false', 'empty', 'blank', 'size', 'first', 'last']);

// liquidjs's escape filter, character for character
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
const escapeLiquid = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** undefined when the source needs liquidjs. `escape` = the HTML engine's output escaping. */
export function compileFast(source: string, escape: boolean): FastTemplate | undefined {
  if (source.includes('{%')) return undefined;
  const parts: Part[] = [];
  let last = 0;
  for (const m of source.matchAll(OUTPUT)) {
    const expr = EXPRESSION.exec(m[1]!);
    if (!expr || m[1]!.startsWith('-') || m[1]!.endsWith('-')) return undefined;
    if (expr[1]!.split('.').some((k) => LIQUID_SPECIAL.has(k))) return undefined;
    parts.push(source.slice(last, m.index), { path: expr[1]!.split('.'), fallback: expr[2] ?? expr[3] });
    last = m.index! + m[0].length;
  }
  const tail = source.slice(last);
  if (tail.includes('{{')) return undefined; // an unclosed output: let liquidjs decide
  parts.push(tail);
  return (scope) => {
    let out = '';
    for (const p of parts) {
      if (typeof p === 'string') {
        out += p;
        continue;
      }
      let v: unknown = scope;
      for (const key of p.path)
        v =
          v !== null && typeof v === 'object' && Object.hasOwn(v, key)
            ? (v as Record<string, unknown>)[key]
            : undefined;
      // liquidjs's default: empty strings and nil/false take the fallback (0 does not)
      if (p.fallback !== undefined && (v === undefined || v === null || v === false || v === '')) v = p.fallback;
      let s: string;
      if (typeof v === 'string') s = v;
      else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
      else if (v === undefined || v === null) s = '';
      else return undefined; // arrays, objects, dates: liquidjs knows how it prints them
      out += escape ? escapeLiquid(s) : s;
    }
    return out;
  };
}
