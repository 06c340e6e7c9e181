/** Model versions for the end-to-end tests that compare two models of one task (the server's test helpers). */
import { randomUUID } from 'node:crypto';
import { addOneViewBruiseModel, shippedBruiseModel } from '@mango/server/testing';
import type { E2E } from './harness.ts';

export { shippedBruiseModel };

/**
 * Registers a second version of the shipped bruise model with the test server: the same network
 * reading each photo once (no test-time augmentation). Answers its id.
 */
export async function addOneViewModel(e2e: E2E): Promise<string> {
  const id = `bruise-one-view-${randomUUID().slice(0, 8)}`;
  await addOneViewBruiseModel(e2e.server, id);
  return id;
}
