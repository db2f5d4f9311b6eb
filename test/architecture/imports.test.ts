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

/** src/domain/<context>/… → the context; shared domain files and other folders → their top folder. */
const folderOf = (file: string) => {
  const parts = file.split('/');
  return parts[0] === 'domain' && parts.length > 2 ? `domain/${parts[1]}` : parts[0]!;
};

test('no import cycle between folders (contexts of src/domain included)', () => {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of edges) {
    const [a, b] = [folderOf(from), folderOf(to)];
    if (a !== b) next.set(a, (next.get(a) ?? new Set()).add(b));
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (folder: string, path: string[]) => {
    if (state.get(folder) === 'done') return;
    if (state.get(folder) === 'open')
      return void cycles.push([...path.slice(path.indexOf(folder)), folder].join(' > '));
    state.set(folder, 'open');
    for (const to of next.get(folder) ?? []) visit(to, [...path, folder]);
    state.set(folder, 'done');
  };
  for (const folder of next.keys()) visit(folder, []);
  assert.deepEqual(cycles, []);
});
