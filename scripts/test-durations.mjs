// A node:test reporter that adds up each test file's time (its top-level tests) and keeps them as JSON,
// slowest first, in the file named by MAILGROVE_TEST_DURATIONS: scripts/test.mjs starts the slowest files
// first on the next run. The file is rewritten after every file's test rather than once at the end,
// because --test-force-exit ends the run before a reporter's last output is written.
import { writeFileSync } from 'node:fs';

export default async function* durations(source) {
  const target = process.env.MAILGROVE_TEST_DURATIONS;
  const files = new Map();
  const cwd = process.cwd() + '/';
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && event.data.file) {
      const seconds = (event.data.details?.duration_ms ?? 0) / 1000;
      files.set(event.data.file, (files.get(event.data.file) ?? 0) + seconds);
      const sorted = [...files].sort((a, b) => b[1] - a[1]);
      const json = Object.fromEntries(sorted.map(([f, s]) => [f.replace(cwd, ''), Math.round(s * 10) / 10]));
      if (target) writeFileSync(target, JSON.stringify(json, null, 2) + '\n');
    }
  }
  yield '';
}
