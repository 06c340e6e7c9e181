/** Model versions for tests (issue 28: re-scoring a run with another model). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS_DIR, readManifest } from '@mango/models';
import type { RunningServer } from '../server.ts';

/** The shipped bruise model's manifest entry. */
export const shippedBruiseModel = () => readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;

/**
 * Registers (not activated) a second version of the shipped bruise model under `id`: the same network
 * reading each photo once (no test-time augmentation), so its figures differ a little from the shipped one's.
 */
export async function addOneViewBruiseModel(server: Pick<RunningServer, 'ctx'>, id: string): Promise<void> {
  const shipped = shippedBruiseModel();
  await server.ctx.jobs.models.add({
    id,
    entry: { ...shipped, tta: ['identity'] },
    file: new Uint8Array(readFileSync(join(MODELS_DIR, shipped.file))),
    base_id: shipped.id,
    card: null,
    evaluation: null,
    created_by: 'test',
  });
}
