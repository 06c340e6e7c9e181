import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources of every package (the `source` export condition), not dist/.
export default defineConfig({
  resolve: { conditions: ['source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['source', ...defaultServerConditions] } },
  test: {
    projects: [
      {
        extends: true, // the root resolve conditions: tests import the packages' sources, not dist/
        test: {
          name: 'unit',
          include: [
            '{core,plugins,models,runner,server,cli,widget,examples}/**/*.test.{ts,tsx}',
            'web/src/**/*.test.{ts,tsx}',
            '*.test.ts',
          ],
          exclude: ['**/node_modules/**', '**/*.e2e.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['**/*.e2e.test.ts'],
          exclude: ['**/node_modules/**'],
          globalSetup: ['./web/e2e/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
