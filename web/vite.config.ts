// Builds the dashboard SPA into web/dist (served by src/http/dashboard/spa.ts). `npm run build:web`;
// postinstall runs it, so a fresh clone's `npm install && npm start` serves the dashboard.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // no internet on the deployment machine is assumed: everything is bundled, nothing loads from a CDN
    assetsInlineLimit: 4096,
    // the app chunk is React, the router, Query and the table; CodeMirror (~580 kB) and uPlot load only
    // on the pages that use them (lazy imports), so the warning's 500 kB is about the editor chunk
    chunkSizeWarningLimit: 650,
  },
  logLevel: 'warn',
});
