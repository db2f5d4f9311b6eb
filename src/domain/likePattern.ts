// LIKE patterns over lower-cased text with the user's % _ and \ taken literally (backslash is PostgreSQL's
// default LIKE escape): list searches match anywhere, segment rules also at the start or the end.
export function likePattern(term: string, where: 'contains' | 'starts_with' | 'ends_with' = 'contains'): string {
  const t = term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return where === 'contains' ? `%${t}%` : where === 'starts_with' ? `${t}%` : `%${t}`;
}
