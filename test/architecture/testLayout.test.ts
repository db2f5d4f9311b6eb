// Tests mirror the code: the test of src/<path>/<name>.ts is test/<path>/<name>.test.ts, or
// test/<path>/<name>.<aspect>.test.ts when one file's tests are split by aspect (ledger.audience.test.ts).
// Whole stories (e2e), fuzzing and these guards have no single file to mirror; every other test file
// should, so that a newcomer finds a rule's tests where the rule is. A few cover several files at once
// (the bounds of every REST route, say); they stay below one in five.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '../..');
const NOT_MIRRORED_BY_NATURE = ['test/e2e/', 'test/fuzz/', 'test/architecture/', 'test/support/'];
const SOURCE_ENDINGS = ['.ts', '.tsx', '.sql', '.mjs'];

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The source file a test file mirrors, or undefined when there is none. */
export function mirrored(testFile: string): string | undefined {
  const base = testFile.replace(/^test\//, 'src/').replace(/\.test\.ts$/, '');
  const dir = base.slice(0, base.lastIndexOf('/') + 1);
  const name = base.slice(dir.length).split('.')[0]!;
  for (const ending of SOURCE_ENDINGS) {
    const candidate = `${dir}${name}${ending}`;
    if (existsSync(join(ROOT, candidate))) return candidate;
  }
  return undefined;
}

test('at least 80 % of the unit and HTTP test files sit at the path mirroring their source', () => {
  const files = testFiles(join(ROOT, 'test')).filter((f) => !NOT_MIRRORED_BY_NATURE.some((p) => f.startsWith(p)));
  const astray = files.filter((f) => mirrored(f) === undefined);
  const share = (files.length - astray.length) / files.length;
  assert.ok(
    share >= 0.8,
    `${files.length - astray.length} of ${files.length} mirror their source (${Math.round(share * 100)} %); ` +
      `not mirrored:\n${astray.join('\n')}`,
  );
});

test('the mirror rule: a name, or a name and an aspect, beside the source', () => {
  assert.equal(mirrored('test/domain/delivery/outcome.test.ts'), 'src/domain/delivery/outcome.ts');
  assert.equal(mirrored('test/domain/campaigns/ledger.audience.test.ts'), 'src/domain/campaigns/ledger.ts');
  assert.equal(mirrored('test/cli.test.ts'), 'src/cli.ts');
  assert.equal(mirrored('test/domain/campaigns/nothing.test.ts'), undefined);
});
