// The import graph of src/ keeps its shape: no file imports itself back through others, and layers point
// one way — faces (http, cli, jobs) → domain → db and mail. A new cycle or a backwards import fails here
// with the path that makes it, before it grows into a tangle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import madge from 'madge';

const graph = await madge('src', {
  fileExtensions: ['ts'],
  includeNpm: false,
  detectiveOptions: { ts: { skipTypeImports: false } },
});
const edges = Object.entries(graph.obj()).flatMap(([from, tos]) => tos.map((to) => [from, to] as const));

test('no import cycle between files of src/', () => {
  assert.deepEqual(
    graph.circular().map((cycle) => cycle.join(' > ')),
    [],
  );
});

/** Folders that must not import from the given others. */
const FORBIDDEN: [layer: string, mustNotImport: string[]][] = [
  ['db/', ['domain/', 'http/', 'jobs/', 'cli/', 'mail/', 'auth/']],
  ['mail/', ['domain/', 'http/', 'jobs/', 'cli/', 'auth/']],
  ['domain/', ['http/', 'jobs/', 'cli/', 'auth/']],
];

test('layers point one way: faces → domain → db/mail', () => {
  const backwards = edges.filter(([from, to]) =>
    FORBIDDEN.some(([layer, banned]) => from.startsWith(layer) && banned.some((b) => to.startsWith(b))),
  );
  assert.deepEqual(
    backwards.map(([from, to]) => `${from} → ${to}`),
    [],
  );
});
