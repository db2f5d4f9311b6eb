// Where a helper registers its clean-up: one test's context, or the whole file (node:test's top-level
// after, which runs once the file's last test is done).
import { after } from 'node:test';

// structural, so both a TestContext and node:test's global { after } fit (their hook types differ in @types/node)
export type Scope = { after(fn: () => unknown): void };

export const fileScope: Scope = { after: (fn) => after(fn as Parameters<typeof after>[0]) };
