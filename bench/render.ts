// npm run bench -- render [--runs N]: the server's render of each starter block document, warm, the way a
// save or a preview renders it (document → MJML in this thread, MJML → HTML in the render pool), plus the
// CPU one render costs on a single thread (toMjml + the MJML compile, strict and as the renderer runs it).
// Wall times on a shared machine include waiting for a core: the minimum is the unloaded cost.
import { performance } from 'node:perf_hooks';
import { renderDocument, toMjml } from '../src/domain/content/blocks/render.ts';
import { starters } from '../src/domain/content/starters.ts';
import { compileMjmlHere } from '../src/mail/mjml.ts';

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function cpuPerRender(runs: number, f: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 5; i++) await f();
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) await f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / runs;
}

export default async function run(args: string[]) {
  const at = args.indexOf('--runs');
  const runs = at >= 0 ? Number(args[at + 1]) : 40;
  console.log(`starter        blocks  pool min  pool median  CPU strict  CPU as rendered`);
  for (const s of starters()) {
    const doc = s.document;
    for (let i = 0; i < 5; i++) await renderDocument(doc);
    const wall: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      await renderDocument(doc);
      wall.push(performance.now() - t);
    }
    wall.sort((a, b) => a - b);
    const strict = await cpuPerRender(runs, () => compileMjmlHere(toMjml(doc)));
    const generated = await cpuPerRender(runs, () => compileMjmlHere(toMjml(doc), true));
    console.log(
      `${s.key.padEnd(14)} ${String(doc.blocks.length).padStart(6)}  ${ms(wall[0]!).padStart(8)}  ${ms(
        wall[Math.floor(runs / 2)]!,
      ).padStart(11)}  ${ms(strict).padStart(10)}  ${ms(generated).padStart(15)}`,
    );
  }
}
