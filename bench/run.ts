// npm run bench -- <name> [args…]: runs bench/<name>.ts, whose default export is run(args).
// Without a name it lists the benches there are. Each bench prints its own numbers and ratios.
import { readdirSync } from 'node:fs';

const HERE = new URL('./', import.meta.url);
const NOT_BENCHES = new Set(['run', 'support', 'sinkProcess']);

const available = readdirSync(HERE)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((name) => !NOT_BENCHES.has(name))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  if (name) console.error(`Unknown bench: ${name}`);
  console.log(`Usage: npm run bench -- <name> [args…]\nBenches: ${available.join(', ')}`);
  process.exit(name ? 2 : 0);
}
const mod = (await import(new URL(`./${name}.ts`, HERE).href)) as { default: (args: string[]) => Promise<void> | void };
await mod.default(args);
// servers, pools and timers a bench forgot must not keep the process alive after it has printed
process.exit(0);
