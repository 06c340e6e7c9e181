import { defaultClientConditions, defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  // bundle the workspace packages from their TypeScript sources (the `source` export condition)
  resolve: { conditions: ['source', ...defaultClientConditions] },
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 2000 },
  worker: { format: 'es' },
  server: {
    proxy: {
      '/api-node': 'http://localhost:8080',
      '/api-py': 'http://localhost:8080',
      '/api': 'http://localhost:8080',
    },
  },
});
