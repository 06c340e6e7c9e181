/** Model versions for the end-to-end tests that compare two models of one task. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS_DIR, readManifest } from '@mango/models';
import type { E2E } from './harness.ts';

/** The shipped bruise segmentation model's manifest entry. */
export const shippedBruiseModel = () => readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;

/**
 * Registers a second version of the shipped bruise model with the test server: the same network
 * reading each photo once (no test-time augmentation). Answers its id.
 */
export async function addOneViewModel(e2e: E2E): Promise<string> {
  const shipped = shippedBruiseModel();
  const id = `bruise-one-view-${randomUUID().slice(0, 8)}`;
  await e2e.server.ctx.jobs.models.add({
    id,
    entry: { ...shipped, tta: ['identity'] },
    file: new Uint8Array(readFileSync(join(MODELS_DIR, shipped.file))),
    base_id: shipped.id,
    card: null,
    evaluation: null,
    created_by: 'test',
  });
  return id;
}
