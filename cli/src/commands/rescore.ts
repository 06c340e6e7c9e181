/** `mango rescore --server URL --run ID --model MODEL_ID`: a stored run re-scored with another model version on its server. */
import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { serverApiKey } from '../server-job.ts';

export function rescoreCommand(program: Command) {
  program
    .command('rescore')
    .description(
      "re-score a stored bruise run on its server with another model version (from the run's kept photos, " +
        'into a new run linked to it), then print both models side by side: per photo and the median difference',
    )
    .requiredOption('--server <url>', 'the Mango server of the run')
    .requiredOption('--run <id>', 'the stored run to re-score')
    .requiredOption('--model <id>', 'the model version to re-score it with (GET /api-node/models lists them)')
    .option('--api-key <key>', 'the API key for --server (default: MANGO_API_KEY)')
    .option('--out <file>', 'write the comparison as JSON (both runs, their models, per photo and the summary)')
    .action(async (o: { server: string; run: string; model: string; apiKey?: string; out?: string }) => {
      const apiKey = serverApiKey(o.apiKey);
      // The comparison loads only for this command.
      const { rescoreOnServer, formatRescore } = await import('../server-rescore.ts');
      const r = await rescoreOnServer({ server: o.server, apiKey, runId: o.run, modelId: o.model });
      console.log(formatRescore(r));
      if (o.out) {
        const side = (run: typeof r.first) => ({
          run_id: run.id,
          model_id: run.model_id,
          model_sha256: run.model_sha256,
        });
        const out = { first: side(r.first), second: side(r.second), ...r.comparison };
        await writeFile(o.out, JSON.stringify(out, null, 2) + '\n');
      }
    });
}
