// One CSV cell, for every export (campaign recipients, subscribers): RFC 4180 quoting when needed, and a
// leading = + - @ (or tab, CR) defused with ' so a spreadsheet never runs subscriber data as a formula.
export function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
