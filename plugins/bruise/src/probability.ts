/**
 * The lesion "probability" of a classical analysis (the mask editor's magic wand reads it, issue 28):
 * the classical method has no probability, so each fruit pixel gets its CIE76 colour distance from
 * that fruit's healthy peel (the per-channel median L*, a*, b* of its pixels outside the bruise mask;
 * all its pixels when every one is bruised), scaled so that `fullScale` ΔE and more is 255. Outside
 * the fruit: 0. The learned model's own probability is `learnedSegmentation`'s (learned.ts).
 */
import { rgbaToLabPlanes, type RasterImage } from '@mango/core';

function median(values: Float32Array): number {
  if (values.length === 0) return 0;
  const sorted = values.slice().sort();
  return sorted[sorted.length >> 1];
}

/**
 * An 8-bit map (the size of `work`) of each fruit pixel's colour distance from its fruit's healthy
 * peel median: round(255 * min(1, ΔE76 / fullScale)); 0 outside the fruit (`labels` 0).
 */
export function colourDistanceMap(
  work: RasterImage,
  labels: Int32Array,
  count: number,
  bruise: Uint8Array,
  fullScale: number,
): Uint8Array {
  if (!(fullScale > 0)) throw new Error(`the full scale of a colour-distance map must be > 0, not ${fullScale}`);
  const n = work.width * work.height;
  if (labels.length !== n || bruise.length !== n)
    throw new Error(`labels and bruise mask of ${work.width}x${work.height} need ${n} pixels each`);
  const { L, A, B } = rgbaToLabPlanes(work.data, n);
  // Each fruit's pixels, healthy ones first counted, to take the medians from.
  const all = new Int32Array(count + 1);
  const healthy = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) {
    const l = labels[i];
    if (l <= 0 || l > count) continue;
    all[l]++;
    if (!bruise[i]) healthy[l]++;
  }
  const centre = new Float32Array((count + 1) * 3);
  for (let l = 1; l <= count; l++) {
    if (all[l] === 0) continue;
    const useAll = healthy[l] === 0;
    const m = useAll ? all[l] : healthy[l];
    const planes = [new Float32Array(m), new Float32Array(m), new Float32Array(m)];
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (labels[i] !== l || (!useAll && bruise[i])) continue;
      planes[0][k] = L[i];
      planes[1][k] = A[i];
      planes[2][k] = B[i];
      k++;
    }
    for (let c = 0; c < 3; c++) centre[l * 3 + c] = median(planes[c]);
  }
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const l = labels[i];
    if (l <= 0 || l > count) continue;
    const d = Math.hypot(L[i] - centre[l * 3], A[i] - centre[l * 3 + 1], B[i] - centre[l * 3 + 2]);
    out[i] = Math.round(255 * Math.min(1, d / fullScale));
  }
  return out;
}
