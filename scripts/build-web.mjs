#!/usr/bin/env node
// postinstall: builds the dashboard (web/ → web/dist) so `npm install && npm start` serves it.
// A failed build does not fail the install: the API works without it, and the server's `/` then says
// how to build the dashboard (npm run build:web), which also shows the build's error again.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const vite = new URL('../node_modules/vite/bin/vite.js', import.meta.url);
if (!existsSync(vite)) {
  console.warn('mailgrove: vite is not installed; skipping the dashboard build (npm run build:web)');
  process.exit(0);
}
const started = Date.now();
const r = spawnSync(process.execPath, [fileURLToPath(vite), 'build', '--config', 'web/vite.config.ts'], {
  stdio: 'inherit',
});
if (r.status === 0)
  console.log(`mailgrove: dashboard built into web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
else console.warn('mailgrove: the dashboard build failed; the API still works. Run `npm run build:web` to see why.');
