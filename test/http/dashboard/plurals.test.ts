// Counts in the dashboard read as English: "1 subscriber", "2 subscribers". One helper (plural in
// web/src/ui.tsx) writes them, and no page spells a count next to a hard-coded plural noun.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const WEB = new URL('../../../web/src/', import.meta.url).pathname;
// through a computed specifier: the server's tsconfig compiles no JSX, tsx runs it fine
const { plural } = (await import(`${WEB}ui.tsx`)) as { plural(n: number, one: string, many?: string): string };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.tsx?$/.test(name) ? [path] : [];
  });
}

test('plural › one is singular, anything else plural, the number grouped', () => {
  assert.equal(plural(1, 'subscriber'), '1 subscriber');
  assert.equal(plural(0, 'subscriber'), '0 subscribers');
  assert.equal(plural(2, 'recipient'), '2 recipients');
  assert.equal(plural(1204, 'subscriber'), (1204).toLocaleString() + ' subscribers');
  assert.equal(plural(3, 'person', 'people'), '3 people');
});

test('plural › no dashboard page writes a formatted count before a fixed plural noun ("{n} subscribers")', () => {
  const HARD_PLURAL = /toLocaleString\(\)\}\s+[a-z]+s\b/g;
  const found = sources(WEB).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(HARD_PLURAL)].map((m) => `${file.slice(WEB.length)}: ${m[0]}`),
  );
  assert.deepEqual(found, []);
});
