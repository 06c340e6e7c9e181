/**
 * The layer rules of eslint.config.js fire: each breach below is an error at the path it would
 * have in the repository, and the allowed imports pass.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: import.meta.dirname });

async function errors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layers (no-restricted-imports)', () => {
  it('core imports nothing of the repository', async () => {
    expect(await errors('core/src/x.ts', "import { a } from '@mango/plugin-bruise';\nexport { a };\n")).toEqual([
      expect.stringContaining('core imports nothing of the repository'),
    ]);
    expect(await errors('core/src/x.ts', "import { a } from '@mango/models';\nexport { a };\n")).toHaveLength(1);
    expect(await errors('core/src/x.ts', "import { a } from './image.ts';\nexport { a };\n")).toEqual([]);
  });

  it('a plugin or the model loader never imports a front end', async () => {
    for (const front of ['@mango/server', '@mango/web', '@mango/cli', '@mango/widget', '@mango/cli/commands'])
      expect(await errors('plugins/bruise/src/x.ts', `import { a } from '${front}';\nexport { a };\n`)).toEqual([
        expect.stringContaining('never a front end'),
      ]);
    expect(await errors('models/src/x.ts', "import { a } from '@mango/server';\nexport { a };\n")).toHaveLength(1);
    expect(await errors('plugins/bruise/src/x.ts', "import { a } from '@mango/core';\nexport { a };\n")).toEqual([]);
    expect(await errors('plugins/bruise/src/x.ts', "import a from '@mango/plugin-crop';\nexport { a };\n")).toEqual([]);
  });

  it('the job runner imports core, plugins and models, never a front end', async () => {
    for (const front of ['@mango/server', '@mango/web', '@mango/cli', '@mango/widget'])
      expect(await errors('runner/src/x.ts', `import { a } from '${front}';\nexport { a };\n`)).toEqual([
        expect.stringContaining('the job runner imports core, plugins and models only'),
      ]);
    for (const ok of ['@mango/core', '@mango/core/node', '@mango/plugins', '@mango/plugin-bruise', '@mango/models'])
      expect(await errors('runner/src/x.ts', `import { a } from '${ok}';\nexport { a };\n`)).toEqual([]);
  });

  it("no package reaches into another's src/", async () => {
    expect(await errors('server/src/x.ts', "import { a } from '@mango/core/src/image.ts';\nexport { a };\n")).toEqual([
      expect.stringContaining("never another package's src/"),
    ]);
    expect(await errors('cli/src/x.ts', "import { a } from '../../core/src/image.ts';\nexport { a };\n")).toHaveLength(
      1,
    );
    expect(await errors('server/src/x.ts', "import { a } from '@mango/core/node';\nexport { a };\n")).toEqual([]);
  });
});

describe('core and the server run, job and export code name no plugin (mango/no-plugin-ids)', () => {
  const named = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path });
    return result.messages.filter((m) => m.ruleId === 'mango/no-plugin-ids').map((m) => m.message);
  };
  it('fires on a plugin id in any form and on a plugin import', async () => {
    for (const code of [
      "export const isBruise = (op: string) => op === 'bruise';\n",
      "export function f(op: string) {\n  switch (op) {\n    case 'features':\n      return 1;\n  }\n  return 0;\n}\n",
      "export const known = (op: string) => ['kmeans'].includes(op);\n",
      'export const name = (x: string) => `remove-background${x}`;\n',
    ]) {
      for (const path of [
        'core/src/x.ts',
        'server/src/runs/x.ts',
        'server/src/jobs/x.ts',
        'server/src/routes/api-node/runs.ts',
        'server/src/openapi/components.ts',
      ])
        expect(await named(path, code)).toEqual([expect.stringContaining("is a plugin's id")]);
    }
    expect(await named('server/src/jobs/x.ts', "import a from '@mango/plugin-bruise';\nexport { a };\n")).toEqual([
      expect.stringContaining('is one plugin'),
    ]);
  });
  it("fires in the web client's generic libraries, not in a page nor in the libraries that are one plugin's", async () => {
    const code = "export const isBruise = (op: string) => op === 'bruise';\n";
    for (const path of ['web/src/lib/runs.ts', 'web/src/lib/jobs.ts', 'web/src/lib/failures.ts', 'web/src/lib/x.ts'])
      expect(await named(path, code), path).toEqual([expect.stringContaining("is a plugin's id")]);
    expect(
      await named(
        'web/src/lib/jobs.ts',
        "import { isBruiseFigures } from '@mango/plugin-bruise/results';\nexport { isBruiseFigures };\n",
      ),
    ).toEqual([expect.stringContaining('is one plugin')]);
    for (const path of [
      'web/src/pages/bruise/Bruise/results.ts',
      'web/src/pages/results/bruiseItems.ts',
      'web/src/lib/bruiseResults.ts',
      'web/src/lib/featureFormat.ts',
      'web/src/lib/runs.test.ts',
    ])
      expect(await named(path, code), path).toEqual([]);
  });
  it('leaves tests, the registry and the /api-py routes alone', async () => {
    const code = "export const isBruise = (op: string) => op === 'bruise';\n";
    expect(await named('server/src/runs/x.test.ts', code)).toEqual([]);
    expect(await named('server/src/routes/api-py/x.ts', code)).toEqual([]);
    expect(
      await named('server/src/jobs/x.ts', "import { registry } from '@mango/plugins';\nexport { registry };\n"),
    ).toEqual([]);
  });
});

describe("core and the server run, job and export code name no plugin's result field (mango/no-plugin-fields)", () => {
  const named = async (path: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: path });
    return result.messages.filter((m) => m.ruleId === 'mango/no-plugin-fields').map((m) => m.message);
  };
  it('fires on a field as a property, a type member, a string and a template piece', async () => {
    for (const [code, field] of [
      ['export const f = (r: { bruise_percent: number }) => r.bruise_percent;\n', 'bruise_percent'],
      ["export const key = 'lesion_area';\n", 'lesion_area'],
      ['export interface F {\n  fruit_pixels?: number;\n}\n', 'fruit_pixels'],
      ['export const k = (u: string) => `${u}bruise_area_cm2`;\n', 'bruise_area_cm2'],
      ["export const g = (r: Record<string, number>) => r['area_cm2'];\n", 'area_cm2'],
    ]) {
      for (const path of [
        'core/src/plots.ts',
        'core/src/grades/index.ts',
        'core/src/schemas/index.ts',
        'runner/src/x.ts',
        'server/src/runs/x.ts',
      ]) {
        const messages = await named(path, code);
        expect(messages.length, `${path}: ${code}`).toBeGreaterThan(0);
        expect(messages[0]).toContain(`'${field}' is a plugin's result field`);
      }
    }
  });
  it("leaves the plugins (their result shapes too), tests, core's test helpers and /api-py alone, and generic names pass", async () => {
    const code = 'export const f = (r: { bruise_percent: number }) => r.bruise_percent;\n';
    for (const path of [
      'plugins/bruise/src/plots.ts',
      'core/src/plots.test.ts',
      'core/src/testing/x.ts',
      'plugins/bruise/src/results.ts',
      'plugins/features/src/results.ts',
      'server/src/routes/api-py/x.ts',
    ])
      expect(await named(path, code), path).toEqual([]);
    expect(
      await named('core/src/plots.ts', 'export const f = (r: { value: number; fruits: [] }) => r.value;\n'),
    ).toEqual([]);
  });
  it('lists every result field the bruise plugin declares for its plots and grades', async () => {
    const { PLUGIN_FIELDS } = await import('./tools/eslint/no-plugin-ids.js');
    const { BRUISE_PLOTS } = await import('@mango/plugin-bruise/plots');
    const { BRUISE_GRADE_FIELDS } = await import('@mango/plugin-bruise/grades');
    const declared = [
      BRUISE_PLOTS.value,
      ...(BRUISE_PLOTS.requires ?? []),
      ...[BRUISE_PLOTS.x, BRUISE_PLOTS.y].flatMap((a) => [a.name, a.px, a.cm2]),
      ...Object.keys(BRUISE_GRADE_FIELDS.measures),
      BRUISE_GRADE_FIELDS.areaCm2,
    ].filter((f) => f !== 'pixels');
    expect(declared.length).toBe(10);
    expect(PLUGIN_FIELDS).toEqual(expect.arrayContaining(declared));
  });
});
