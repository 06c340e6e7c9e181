/**
 * A stored run's kept photo on the client (issue 28): read with the access token, its pixels at a
 * working size, and the overlay of its corrected masks (the latest truth) drawn as the bruise plugin
 * draws the model's (`correctedOverlay`: the same colours and marks), for /viewphoto/result after a correction.
 */
import { decodeCocoRle, fitSize, type CocoRle, type RasterImage } from '@mango/core';
import { correctedOverlay, overlaySideOf } from '@mango/plugin-bruise/corrected';
import { apiFetch } from '#web/api/client.ts';
import { rasterToCanvas } from './canvas.ts';

/** Where photo `position` of run `runId` and its truth are read (`/photo`, `/truth`, `/model-masks`). */
export const itemBase = (runId: string, position: number) =>
  `/api-node/runs/${encodeURIComponent(runId)}/items/${position}`;

/** The kept photo decoded (its own size); an error when the photo was not kept. */
export async function loadKeptPhoto(base: string): Promise<{ img: HTMLImageElement; w: number; h: number }> {
  const res = await apiFetch(`${base}/photo`);
  if (!res.ok) throw new Error('photo not kept');
  const url = URL.createObjectURL(await res.blob());
  const img = new Image();
  img.src = url;
  try {
    await img.decode();
  } finally {
    URL.revokeObjectURL(url);
  }
  return { img, w: img.naturalWidth, h: img.naturalHeight };
}

/** The photo's pixels at `width` x `height` (the browser's resampling). */
export function rasterAt(img: HTMLImageElement, width: number, height: number): RasterImage {
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(img, 0, 0, width, height);
  return { width, height, data: ctx.getImageData(0, 0, width, height).data };
}

/**
 * The overlay of the latest truth of a kept photo as a PNG data URL, drawn as the model's overlay of
 * it (`correctedOverlay`): the corrected fruit outlined, the corrected lesions tinted, and the
 * reference ring and colour-card outline its model result (`model`) recorded; as large as the run's
 * overlay (its `overlayMaxSide`, `runOptions`). Null: no truth.
 */
export async function correctedOverlayUrl(
  base: string,
  model: Record<string, unknown>,
  runOptions: Record<string, unknown> = {},
): Promise<string | null> {
  const res = await apiFetch(`${base}/truth`);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`Failed to read the corrected masks (${res.status})`);
  const truth = (await res.json()) as { fruit: CocoRle; bruise: CocoRle };
  const fruit = decodeCocoRle(truth.fruit);
  const bruise = decodeCocoRle(truth.bruise);
  const { img, w, h } = await loadKeptPhoto(base);
  if (fruit.width !== w || fruit.height !== h)
    throw new Error(`masks of ${fruit.width}x${fruit.height} for a ${w}x${h} photo`);
  const masks = { width: w, height: h, fruit: fruit.mask, bruise: bruise.mask };
  // the photo is drawn at the overlay's size once (the browser's resampling), the masks follow it
  const size = fitSize(w, h, overlaySideOf(runOptions));
  const photo = rasterAt(img, size.width, size.height);
  return rasterToCanvas(correctedOverlay(model, masks, photo, runOptions)).toDataURL('image/png');
}
