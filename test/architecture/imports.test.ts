// The import graph of src/ keeps its shape: no file imports itself back through others, and layers point
// one way — faces (http, cli, jobs) → domain → db and mail. The dashboard (web/src) has no cycle either.
// A new cycle or a backwards import fails here with the path that makes it, before it grows into a tangle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

test('no import cycle between files of web/src/ (type imports count: they tie files as much)', async () => {
  const web = await madge('web/src', {
    fileExtensions: ['ts', 'tsx'],
    includeNpm: false,
    detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
  });
  assert.ok(Object.keys(web.obj()).length > 50, 'madge read the dashboard');
  assert.deepEqual(
    web.circular().map((cycle) => cycle.join(' > ')),
    [],
  );
});

/** The dashboard's files outside its data layer (web/src/api/), without their comments. */
function dashboardSources(dir = 'web/src'): [file: string, code: string][] {
  return readdirSync(dir).flatMap((name): [string, string][] => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return path === join('web/src', 'api') ? [] : dashboardSources(path);
    if (!/\.tsx?$/.test(name)) return [];
    const code = readFileSync(path, 'utf8')
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/\/\*[\s\S]*?\*\//g, '');
    return [[path, code]];
  });
}

test('the dashboard reaches the server only through web/src/api/: no URL, fetch or cache key in a page', () => {
  const BANNED: [what: string, pattern: RegExp][] = [
    ['the fetch helper', /import\s*\{[^}]*\bapi\b[^}]*\}\s*from\s*'[^']*api\/client\.ts'/],
    ['a server URL', /['"`]\/app\/api/],
    ['fetch()', /\bfetch\(/],
    ['an inline query key', /queryKey:\s*\[/],
  ];
  const found = dashboardSources().flatMap(([file, code]) =>
    BANNED.filter(([, pattern]) => pattern.test(code)).map(([what]) => `${file}: ${what}`),
  );
  assert.deepEqual(found, []);
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

// A face hands what it received to the domain function that parses it (or parses it itself with the
// domain's schema); `req.body as X` would tell the compiler a shape nobody checked.
const UNPARSED_CAST = /\b(?:req|request)\.(?:query|body|params)(?:\s*\?\?\s*[^)]*\))?\s+as\s+(?!unknown\b)/;

test('no unparsed cast of a request’s query, body or params in src/http', () => {
  const casts = readdirSync('src/http', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      readFileSync(join('src/http', file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (UNPARSED_CAST.test(line) ? [`src/http/${file}:${i + 1}: ${line.trim()}`] : [])),
    );
  assert.deepEqual(casts, []);
});
