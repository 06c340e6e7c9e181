import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
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
