/**
 * `mango eval bruise --run ID --server URL` (issue 28 item 2): a stored run's model figures scored
 * against its corrections. The corrections are the run's annotations export (COCO: the latest truth
 * of each corrected photo, GET /api-node/runs/{id}/annotations), read by the same reader as `--truth`;
 * the model's masks of each corrected photo are the server's (GET .../items/{position}/model-masks:
 * the kept photo scored again with the run's options). The evaluation is `--truth`'s (lesion % error,
 * Lin's concordance, fruit and lesion IoU), printed the same way.
 */
import { decodeCocoRle, type CocoRle } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { openTruthInput, scorePixelImage, summarisePixelSet, type BruiseEvaluation } from '@mango/plugin-bruise/eval';
import { answerError, serverBase } from './server-job.ts';
import { UsageError } from './util.ts';

interface RunItem {
  position: number;
  filename: string;
  result: { error?: string };
  model_result?: { fruits?: unknown[] } | null;
  truth: { version: number } | null;
}

/** The evaluation of run `runId`'s model figures against its corrections, on the server `server`. */
export async function evaluateRunOnServer(o: { server: string; apiKey: string; runId: string }): Promise<{
  evaluation: BruiseEvaluation;
  corrected: number;
  photos: number;
}> {
  const start = performance.now();
  const base = serverBase(o.server);
  const get = async (path: string, what: string) => {
    const res = await fetch(`${base}/api-node/runs/${encodeURIComponent(o.runId)}${path}`, {
      headers: { Authorization: `Bearer ${o.apiKey}` },
    });
    if (!res.ok) throw new Error(`${what} could not be read from ${base}: ${await answerError(res)}`);
    return res.json() as Promise<unknown>;
  };
  const run = (await get('', `run ${o.runId}`)) as {
    method_used?: string | null;
    method?: string | null;
    items: RunItem[];
  };
  const corrected = run.items.filter((i) => i.truth);
  if (corrected.length === 0)
    throw new UsageError(
      `run ${o.runId} has no corrected photo: correct one in the mask editor, or import annotations (POST /api-node/runs/${o.runId}/annotations), first`,
    );
  const truth = openTruthInput(
    {
      kind: 'json',
      name: `the annotations of run ${o.runId}`,
      data: await get('/annotations?format=coco', 'the corrections'),
    },
    decodeImage,
  );
  const per = [];
  for (const item of corrected) {
    const masks = await truth.masks(item.filename);
    if (!masks) throw new Error(`the annotations of run ${o.runId} have no masks of ${item.filename}`);
    const model = (await get(`/items/${item.position}/model-masks`, `the model's masks of ${item.filename}`)) as {
      fruit: CocoRle;
      bruise: CocoRle;
    };
    const fruit = decodeCocoRle(model.fruit);
    const bruise = decodeCocoRle(model.bruise);
    if (fruit.width !== masks.width || fruit.height !== masks.height)
      throw new Error(
        `${item.filename}: the model's masks are ${fruit.width}x${fruit.height}, its truth ${masks.width}x${masks.height}`,
      );
    const fruitCount = Array.isArray(item.model_result?.fruits) ? item.model_result.fruits.length : undefined;
    per.push(scorePixelImage(item.filename, { fruit: fruit.mask, bruise: bruise.mask, fruitCount }, masks));
  }
  const evaluation: BruiseEvaluation = {
    method: run.method_used ?? run.method ?? 'unknown',
    pixel: { format: truth.format, ...summarisePixelSet(per) },
    elapsed_ms: Math.round(performance.now() - start),
  };
  return { evaluation, corrected: corrected.length, photos: run.items.length };
}
