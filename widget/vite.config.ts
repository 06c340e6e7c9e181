/**
 * Library build of the widget: one self-contained ES module and one classic script, with the
 * local-mode worker inlined (Blob URL), so a partner page needs no other file from us.
 */
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';

export default defineConfig({
  // bundle the workspace packages from their TypeScript sources (the `source` export condition)
  resolve: {
    conditions: ['source', ...defaultClientConditions],
    // The run report's charts (core's plots-render.ts, vega; imported by core and by the bruise
    // plugin's report) are never drawn by the widget.
    alias: [
      {
        find: /^(\.\/plots-render\.ts|@mango\/core\/plots-render)$/,
        replacement: fileURLToPath(new URL('./src/no-plots.ts', import.meta.url)),
      },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    minify: true,
    reportCompressedSize: false,
    lib: {
      entry: 'src/index.ts',
      name: 'MangoBruiseWidget',
      formats: ['es', 'iife'],
      fileName: (format) => (format === 'es' ? 'mango-bruise-widget.js' : 'mango-bruise-widget.iife.js'),
    },
    rolldownOptions: {
      // The classic script has no import.meta (it becomes {}); element.ts falls back to currentScript.
      onLog(level, log, handler) {
        if (log.code === 'EMPTY_IMPORT_META') return;
        handler(level, log);
      },
    },
  },
  worker: { format: 'iife' },
});
