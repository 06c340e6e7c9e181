/**
 * `mango/no-plugin-ids`: code that must know plugins only by their declarations (core, and the
 * server's run, job and export code: issue 24) names no plugin. A string equal to a plugin's id
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
    const check = (node, text) => {
      if (typeof text === 'string' && ids.has(text)) context.report({ node, messageId: 'id', data: { id: text } });
    };
    const checkImport = (node) => {
      const source = node.source?.value;
      if (typeof source === 'string' && /^@mango\/plugin-/.test(source))
        context.report({ node, messageId: 'import', data: { source } });
    };
    return {
      Literal(node) {
        if (node.parent?.type === 'ImportDeclaration' || node.parent?.type === 'ExportNamedDeclaration') return;
        if (node.parent?.type === 'ImportExpression' || node.parent?.type === 'ExportAllDeclaration') return;
        check(node, node.value);
      },
      TemplateElement(node) {
        check(node, node.value.cooked);
      },
      ImportDeclaration: checkImport,
      ExportNamedDeclaration: checkImport,
      ExportAllDeclaration: checkImport,
      ImportExpression(node) {
        if (node.source.type === 'Literal') checkImport({ source: node.source });
      },
    };
  },
};

export default { rules: { 'no-plugin-ids': noPluginIds } };
