// A LIKE pattern that matches `term` anywhere, with the user's % _ and \ taken literally.
export function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
