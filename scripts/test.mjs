#!/usr/bin/env node
// Runs every test/**/*.test.ts with node:test through tsx (Node 20's --test takes no glob).
// Arguments narrow the run: `npm test -- test/http/rest` runs only files under that path.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));

// The slowest files start first, so that no long file begins near the end of the run while the other
// slots sit idle: the last run's times (.tmp/test-durations.json, written by every run), else the times
// committed in test/durations.json (a fresh checkout). Files with no recorded time keep their order.
const MEASURED = '.tmp/test-durations.json';
function durations() {
  for (const file of [MEASURED, 'test/durations.json']) {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      // none recorded yet
    }
  }
  return {};
}
const known = durations();
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((p) => f.startsWith(p.replace(/^\.\//, ''))))
  .sort()
  .sort((a, b) => (known[b] ?? 0) - (known[a] ?? 0));
// a run of the whole suite records its times for the next one, beside the usual report
const ownReporter = filters.length === 0 && !flags.some((f) => f.startsWith('--test-reporter'));
if (ownReporter) mkdirSync('.tmp', { recursive: true });
const reporters = ownReporter
  ? [
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=./scripts/test-durations.mjs',
      '--test-reporter-destination=stderr',
    ]
  : [];
if (files.length === 0) {
  console.error('No test files matched');
  process.exit(1);
}
// Several files at once: much of the suite's time is spent waiting (child servers starting, browsers, SMTP
// round trips, timers), so on two cores three files finished the PGlite run in 486 s against 631 s with two,
// and four with the tiering budget below in 10 min 46 s against 13 min 16 s with three and without it.
// MAILGROVE_TEST_CONCURRENCY sets another number.
const CONCURRENCY = Number(process.env.MAILGROVE_TEST_CONCURRENCY) || 4;
// --test-force-exit: a file whose tests have all finished ends there. Under load a file whose every test
// had passed (test/mail/render.test.ts, 1 s alone) once sat until the 180 s file timeout and failed the run.
const child = spawn(
  process.execPath,
  [
    // PGlite's PostgreSQL is WebAssembly: V8 compiles its hot functions a second time, optimised, in the
    // background. A test process lives seconds, so that work was mostly waste; a higher budget leaves the
    // short-lived code on the baseline compiler and still optimises what a long test runs hot (a test
    // server's start 3.1 → 2.6 CPU s, test/http/rest 215 → 192 CPU s; the 10,000-recipient send unchanged)
    '--wasm-tiering-budget=100000000',
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${CONCURRENCY}`,
    '--test-timeout=180000',
    '--test-force-exit',
    ...reporters,
    ...flags,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, MAILGROVE_TEST_DURATIONS: MEASURED } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
