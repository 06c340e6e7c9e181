/**
 * `mango train bruise --annotations FILE... --images DIR`: fine-tunes the model in force (or trains
 * from scratch) on the repository's annotated set plus a lab's corrections, scores it beside the
 * model in force on held-out corrections, and adds it to the deployment's registry (not activated).
 * The training install: Debian's python3-torch, python3-onnx, python3-scipy, python3-opencv,
 * python3-skimage, python3-pil (models/training/install.sh); the product itself does not need them.
 */
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { MODELS_DIR } from '@mango/models';
import { BRUISE_TASK, trainBruise } from '../train/bruise.ts';
import { UsageError } from '../util.ts';

interface TrainFlags {
  annotations: string[];
  images: string;
  fromScratch?: boolean;
  steps: string;
  heldOut: string;
  seed: string;
  threads: string;
  devData?: string;
  id?: string;
  dataDir?: string;
  database?: string;
}

const whole = (name: string, v: string, min: number) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min)
    throw new UsageError(`--${name} must be a whole number of at least ${min} (got ${v})`);
  return n;
};

export function trainCommand(program: Command) {
  const train = program
    .command('train')
    .description('train a new model version from corrections (Python training install needed)');
  train
    .command('bruise')
    .description(
      "fine-tune the bruise model in force on the repository's annotated photos plus your corrections, compare it with the model in force on held-out corrections, and register it (activate it with `mango models activate`)",
    )
    .requiredOption(
      '--annotations <files...>',
      'corrections: COCO (a run\'s annotations export), CVAT "Segmentation mask 1.1" folders or Label Studio JSON',
    )
    .requiredOption('--images <dir>', 'the corrected photos, matched to the annotations by file name')
    .option('--from-scratch', 'train from random weights instead of fine-tuning the model in force')
    .option('--steps <n>', 'training steps', '300')
    .option('--held-out <share>', 'share of the photo sources held out for the comparison', '0.34')
    .option('--seed <n>', 'seed of the split and the training', '20261126')
    .option('--threads <n>', 'CPU threads for training', '2')
    .option(
      '--dev-data <dir>',
      "the repository's annotated dev split (default ../shared/data/bruise-dev beside the repository)",
    )
    .option('--id <id>', "the new version's id (default bruise-<date>-<sha256 prefix>)")
    .option('--data-dir <dir>', 'the SQLite deployment to register it in (default: DATA_DIR or ./data)')
    .option('--database <url>', 'the PostgreSQL deployment to register it in (default: DATABASE_URL)')
    .action(async (o: TrainFlags) => {
      const share = Number(o.heldOut);
      if (!(share >= 0 && share < 1))
        throw new UsageError(`--held-out must be a share from 0 to below 1 (got ${o.heldOut})`);
      if (o.dataDir && o.database) throw new UsageError('give --data-dir or --database, not both');
      const { openRegistry, gate, gateText } = await import('@mango/server');
      const opened = await openRegistry({
        dataDir: o.dataDir ?? (o.database ? undefined : process.env.DATA_DIR),
        databaseUrl: o.database ?? (o.dataDir ? undefined : process.env.DATABASE_URL),
      });
      try {
        const base = (await opened.registry.inForce()).find((m) => m.task === BRUISE_TASK) ?? null;
        const trained = await trainBruise(base, {
          annotations: o.annotations,
          images: o.images,
          fromScratch: Boolean(o.fromScratch),
          steps: whole('steps', o.steps, 1),
          heldOut: share,
          seed: whole('seed', o.seed, 0),
          threads: whole('threads', o.threads, 1),
          devData: o.devData ?? resolve(MODELS_DIR, '..', '..', 'shared', 'data', 'bruise-dev'),
          id: o.id,
          log: (line) => console.error(line),
        });
        const version = await opened.registry.add({
          id: trained.id,
          entry: trained.entry,
          file: trained.file,
          base_id: o.fromScratch ? null : (base?.id ?? null),
          card: trained.card,
          evaluation: trained.evaluation
            ? {
                held_out: trained.evaluation.held_out,
                candidate: { error_p90: trained.evaluation.candidate.error_p90, ccc: trained.evaluation.candidate.ccc },
                baseline: {
                  model_id: trained.evaluation.baseline.model_id,
                  error_p90: trained.evaluation.baseline.error_p90,
                  ccc: trained.evaluation.baseline.ccc,
                },
                split: trained.evaluation.split,
              }
            : null,
          created_by: `${userInfo().username} (mango train)`,
        });
        console.error(trained.card);
        console.error(gateText(gate(version.evaluation, base?.id ?? null)));
        console.log(
          JSON.stringify({
            id: version.id,
            sha256: version.sha256,
            base_id: version.base_id,
            evaluation: version.evaluation,
          }),
        );
        console.error(`registered ${version.id}; activate it with: mango models activate ${version.id}`);
      } finally {
        await opened.close();
      }
    });
}
