import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests that measure latency and memory run alone, after every other project.
const LOAD_TESTS = [
  'server/src/security/hardening/load.test.ts',
  'server/src/security/hardening/chunked-bodies.test.ts',
];

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
            '{core,plugins,models,runner,server,cli,widget,examples,clients}/**/*.test.{ts,tsx}',
            'web/src/**/*.test.{ts,tsx}',
            '*.test.ts',
          ],
          exclude: ['**/node_modules/**', '**/*.e2e.test.ts', ...LOAD_TESTS],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The bounded load test of issue 16 item 11 measures latency: it runs alone, after every other
        // project (a higher groupOrder starts once the lower groups are done).
        extends: true,
        test: {
          name: 'load',
          include: LOAD_TESTS,
          testTimeout: 180_000,
          hookTimeout: 90_000,
          sequence: { groupOrder: 1 },
          fileParallelism: false,
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
          // A page under load (CI, or another suite beside it) can take more than expect.poll's default
          // 1 s to fetch and render; a poll that is still wrong after 15 s fails.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
