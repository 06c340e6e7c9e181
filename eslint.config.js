import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import mango from './tools/eslint/no-plugin-ids.js';

/**
 * The layers (guide/architecture.md): core imports nothing of the repository; a plugin (and the
 * model loader) imports core and other plugins only, never a front end; the job runner imports
 * core, the plugins and the models, never a front end; no package reaches into another's src/. ESLint's no-restricted-imports enforces them, so `npm run lint` (in `npm test`)
 * fails on a breach; `eslint.layers.test.ts` checks that each rule fires.
 */
const crossPackage = {
  group: ['../../*/src/*', '../../../*', '@mango/*/src', '@mango/*/src/*'],
  message: "import other packages through the workspace (@mango/...) and their exports, never another package's src/",
};
const frontEnds = ['@mango/server', '@mango/server/*', '@mango/web', '@mango/web/*', '@mango/cli', '@mango/cli/*'];
export const layerRules = {
  all: { patterns: [crossPackage] },
  core: {
    patterns: [
      crossPackage,
      { group: ['@mango/*', '!@mango/core', '!@mango/core/*'], message: 'core imports nothing of the repository' },
    ],
  },
  plugins: {
    patterns: [
      crossPackage,
      {
        group: [...frontEnds, '@mango/widget', '@mango/widget/*'],
        message: 'plugins and models import core and plugins only, never a front end (server, web, cli, widget)',
      },
    ],
  },
  runner: {
    patterns: [
      crossPackage,
      {
        group: [...frontEnds, '@mango/widget', '@mango/widget/*'],
        message: 'the job runner imports core, plugins and models only, never a front end (server, web, cli, widget)',
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'data/**', '**/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', layerRules.all],
    },
  },
  { files: ['core/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': ['error', layerRules.core] } },
  {
    files: ['plugins/**/*.{ts,tsx}', 'models/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', layerRules.plugins] },
  },
  { files: ['runner/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': ['error', layerRules.runner] } },
  {
    // Code that knows plugins by their declarations only (issue 24): core, and the server's run,
    // job, export and API-document code. Tests may name plugins; the spec's /api-py routes name their own
    // (and name their answers' schemas in the document).
    files: [
      'core/src/**/*.{ts,tsx}',
      'server/src/openapi/**/*.ts',
      'server/src/runs/**/*.ts',
      'server/src/jobs/**/*.ts',
      'server/src/routes/api-node/runs.ts',
      'server/src/routes/api-node/jobs.ts',
      'server/src/routes/api-node/job-zip.ts',
    ],
    ignores: ['**/*.test.ts', 'core/src/testing/**'],
    plugins: { mango },
    rules: { 'mango/no-plugin-ids': 'error' },
  },
  {
    // The web client's generic libraries (the run, job, upload, refusal, failure, metadata and
    // run-kind clients) know plugins by their declarations too (issue 24); each page reads its own
    // plugin's results (pages/bruise/Bruise/results.ts, pages/analysis/Analysis/results.ts,
    // pages/results/bruiseItems.ts). Exempt: the libraries that are one plugin's by their purpose,
    // shared by several of its pages: bruiseResults.ts (the bruise results table, its CSVs and
    // zip), fruitGrade.ts (a bruise fruit's grade text), keptPhoto.ts (the bruise plugin's corrected
    // overlay), featureFormat.ts and analysisSession.ts (the feature analysis' table and session).
    files: ['web/src/lib/**/*.{ts,tsx}'],
    ignores: [
      '**/*.test.{ts,tsx}',
      'web/src/lib/bruiseResults.ts',
      'web/src/lib/fruitGrade.ts',
      'web/src/lib/keptPhoto.ts',
      'web/src/lib/featureFormat.ts',
      'web/src/lib/analysisSession.ts',
    ],
    plugins: { mango },
    rules: { 'mango/no-plugin-ids': 'error' },
  },
  {
    // Nor do they name a plugin's result fields (issue 24): plots, grades, tables and reports read
    // the fields a plugin declares. The job runner neither. A plugin's result shapes (its HTTP
    // contracts) are the plugin's own: plugins/<id>/src/results.ts.
    files: [
      'core/src/**/*.{ts,tsx}',
      'runner/src/**/*.ts',
      'server/src/runs/**/*.ts',
      'server/src/jobs/**/*.ts',
      'server/src/routes/api-node/runs.ts',
      'server/src/routes/api-node/jobs.ts',
      'server/src/routes/api-node/job-zip.ts',
    ],
    ignores: ['**/*.test.ts', 'core/src/testing/**'],
    plugins: { mango },
    rules: { 'mango/no-plugin-fields': 'error' },
  },
  {
    files: ['web/**/*.{ts,tsx}', 'widget/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
);
