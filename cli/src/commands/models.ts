/**
 * `mango models list | show ID | activate ID [--force] | rollback [--task T]`: the operator's view of
 * a deployment's model registry (server/src/models/registry.ts), on its database: `--data-dir DIR`
 * (SQLite, as `npm start` keeps it) or `--database postgres://...` (as `mango worker`). Servers and
 * workers of that deployment score new photos with an activated version within 10 s, no restart.
 */
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { UsageError } from '../util.ts';

interface Where {
  dataDir?: string;
  database?: string;
}

const where = (c: Command) =>
  c
    .option('--data-dir <dir>', 'the SQLite deployment: its DATA_DIR (default: DATA_DIR or ./data)')
    .option('--database <url>', 'the PostgreSQL deployment: postgres://user:pass@host/db (default: DATABASE_URL)');

async function withRegistry<T>(o: Where, fn: (r: import('@mango/server').ModelRegistry) => Promise<T>): Promise<T> {
  if (o.dataDir && o.database) throw new UsageError('give --data-dir or --database, not both');
  // The server package is loaded only by the commands that need it.
  const { openRegistry } = await import('@mango/server');
  const opened = await openRegistry({
    dataDir: o.dataDir ?? (o.database ? undefined : process.env.DATA_DIR),
    databaseUrl: o.database ?? (o.dataDir ? undefined : process.env.DATABASE_URL),
  });
  try {
    return await fn(opened.registry);
  } finally {
    await opened.close();
  }
}

const operator = () => `${userInfo().username} (cli)`;

export function modelsCommand(program: Command) {
  const models = program
    .command('models')
    .description("a deployment's model versions: list, show, activate (gated on held-out figures), roll back");

  where(models.command('list').description('every version; * marks the one in force for its task')).action((o: Where) =>
    withRegistry(o, async (r) => {
      for (const v of await r.list()) {
        const figures = v.evaluation
          ? `held-out ${v.evaluation.held_out}: p90 ${v.evaluation.candidate.error_p90.toFixed(2)}, CCC ${v.evaluation.candidate.ccc.toFixed(3)}`
          : '';
        console.log(
          [
            v.active ? '*' : ' ',
            v.id,
            v.task,
            v.builtin ? 'built-in' : `from ${v.base_id ?? 'scratch'}`,
            v.sha256.slice(0, 12),
            figures,
          ]
            .join('\t')
            .trimEnd(),
        );
      }
    }),
  );

  where(
    models
      .command('show')
      .argument('<id>')
      .description("one version as JSON (card, evaluation), and its task's activations"),
  ).action((id: string, o: Where) =>
    withRegistry(o, async (r) => {
      const v = await r.show(id);
      console.log(
        JSON.stringify({ ...v, activations: (await r.history(v.task)).filter((a) => a.model_id === id) }, null, 2),
      );
    }),
  );

  where(
    models
      .command('activate')
      .argument('<id>')
      .option('--force', 'activate even when the gate refuses (recorded with the figures)')
      .description(
        'put a version in force for its task, if it is no worse than the version in force on at least 10 held-out photos (lesion % error p90 and CCC)',
      ),
  ).action((id: string, o: Where & { force?: boolean }) =>
    withRegistry(o, async (r) => {
      const verdict = await r.activate(id, operator(), { force: o.force });
      const { gateText } = await import('@mango/server');
      console.error(gateText(verdict));
      if (!verdict.passed && !o.force) {
        console.error(`${id} was not activated (--force overrides; the override is recorded)`);
        process.exitCode = 1;
        return;
      }
      console.log(`${id} is in force${verdict.passed ? '' : ' (forced past the gate)'}`);
    }),
  );

  where(
    models
      .command('rollback')
      .option('--task <task>', 'the task', 'bruise-segmentation')
      .description('go back to the version in force before the last activation'),
  ).action((o: Where & { task: string }) =>
    withRegistry(o, async (r) => {
      const { from, to } = await r.rollback(o.task, operator());
      console.log(`${o.task}: ${from} -> ${to}`);
    }),
  );
}
