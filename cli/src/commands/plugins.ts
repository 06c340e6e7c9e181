import type { Command } from 'commander';
import { registry } from '@mango/plugins';
import { optionJsonSchemas } from '@mango/core';

export function pluginsCommand(program: Command) {
  program
    .command('plugins')
    .description('list the registered plugins with their options')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      const list = registry.list().map((p) => ({
        id: p.id,
        title: p.title,
        kind: p.kind,
        version: p.version,
        runtimes: p.runtimes,
        description: p.description,
        options: optionJsonSchemas(p.options),
      }));
      if (o.json) {
        console.log(JSON.stringify(list, null, 2));
        return;
      }
      for (const p of list) {
        console.log(`${p.id} ${p.version} (${p.kind}; ${p.runtimes.join(', ')}): ${p.title}`);
        console.log(`  ${p.description}`);
        for (const [k, v] of Object.entries(p.options)) {
          const type = v.enum
            ? v.enum.join('|')
            : v.type === 'array'
              ? `list of ${v.items?.enum?.join('|') ?? 'values'}`
              : v.type;
          const def = v.default !== undefined ? ` = ${JSON.stringify(v.default)}` : '';
          console.log(`    ${k}: ${type}${def}${v.description ? `  ${v.description}` : ''}`);
        }
      }
    });
}
