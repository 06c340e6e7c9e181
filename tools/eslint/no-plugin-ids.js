/**
 * `mango/no-plugin-ids`: code that must know plugins only by their declarations (core, the
 * server's run, job and export code, and the web client's generic libraries: issue 24) names no plugin. A string equal to a plugin's id
 * (any literal or template piece: `=== 'bruise'`, `case 'features':`, `['kmeans'].includes(op)`)
 * or an import of one plugin's package is an error there. The ids are the folders of plugins/
 * that hold a plugin (all but `builtin`, the registry that lists them).
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
export const PLUGIN_IDS = readdirSync(join(root, 'plugins'), { withFileTypes: true })
  .filter(
    (d) => d.isDirectory() && d.name !== 'builtin' && existsSync(join(root, 'plugins', d.name, 'src', 'index.ts')),
  )
  .map((d) => d.name);

const ids = new Set(PLUGIN_IDS);

/** Reports each string (any literal but a module's name) and template piece that is one of `names`. */
function namedStrings(context, names, report) {
  const check = (node, text) => {
    if (typeof text === 'string' && names.has(text)) context.report({ node, ...report(text) });
  };
  return {
    check,
    visitors: {
      Literal(node) {
        if (node.parent?.type === 'ImportDeclaration' || node.parent?.type === 'ExportNamedDeclaration') return;
        if (node.parent?.type === 'ImportExpression' || node.parent?.type === 'ExportAllDeclaration') return;
        check(node, node.value);
      },
      TemplateElement(node) {
        check(node, node.value.cooked);
      },
    },
  };
}

export const noPluginIds = {
  meta: {
    type: 'problem',
    docs: { description: 'core and the server run, job and export code name no plugin (issue 24)' },
    schema: [],
    messages: {
      id: "'{{id}}' is a plugin's id: read the plugin's declaration (core/src/runs.ts) instead of naming it here",
      import: "'{{source}}' is one plugin: import core or the registry (@mango/plugins), not a plugin, here",
    },
  },
  create(context) {
    const { visitors } = namedStrings(context, ids, (id) => ({ messageId: 'id', data: { id } }));
    const checkImport = (node) => {
      const source = node.source?.value;
      if (typeof source === 'string' && /^@mango\/plugin-/.test(source))
        context.report({ node, messageId: 'import', data: { source } });
    };
    return {
      ...visitors,
      ImportDeclaration: checkImport,
      ExportNamedDeclaration: checkImport,
      ExportAllDeclaration: checkImport,
      ImportExpression(node) {
        if (node.source.type === 'Literal') checkImport({ source: node.source });
      },
    };
  },
};

/**
 * The result fields of plugins (issue 24): code that draws, grades or stores results of any plugin
 * reads them from the plugin's declaration (core/src/plots.ts `PlotFields`, core/src/grades
 * `GradingFields`, core/src/runs.ts), never by name. `eslint.layers.test.ts` checks that every field
 * the bruise plugin declares for its plots and grades is listed here.
 */
export const PLUGIN_FIELDS = [
  'bruise_percent',
  'non_bruise_percent',
  'bruise_pixels',
  'bruise_area_cm2',
  'bruise_cm2',
  'fruit_pixels',
  'total_mango_pixels',
  'fruit_area',
  'fruit_area_cm2',
  'area_cm2',
  'lesion_area',
  'lesion_count',
  'mean_bruise_percent',
  'max_bruise_percent',
  'model_bruise_percent',
  'model_bruise_pixels',
  'model_fruit_pixels',
  'colour_difference',
];

const fields = new Set(PLUGIN_FIELDS);

/**
 * `mango/no-plugin-fields`: a plugin's result field named in code that knows results by their
 * declarations: as an identifier (`r.bruise_percent`, a property or type member), a string or a
 * template piece.
 */
export const noPluginFields = {
  meta: {
    type: 'problem',
    docs: { description: "core and the server's run, job and export code name no plugin's result field (issue 24)" },
    schema: [],
    messages: {
      field:
        "'{{field}}' is a plugin's result field: read it from the plugin's declaration (PlotFields, GradingFields, RunDeclaration) instead of naming it here",
    },
  },
  create(context) {
    const { check, visitors } = namedStrings(context, fields, (field) => ({ messageId: 'field', data: { field } }));
    return {
      ...visitors,
      Identifier(node) {
        check(node, node.name);
      },
    };
  },
};

export default { rules: { 'no-plugin-ids': noPluginIds, 'no-plugin-fields': noPluginFields } };
