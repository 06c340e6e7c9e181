/**
 * The mask editor's region tools on a working copy's masks (browser-safe, no DOM): the magic wand's
 * region growing on a probability map and the limiting of an edit to one fruit.
 */

/**
 * The magic wand: the 4-connected region of pixels whose `probability` (0..255) is at least
 * `threshold` and, when `within` is given, that are set in it (the fruit, or one fruit), containing
 * the pixel (x, y). A mask of w x h (1 = in the region), or null when (x, y) is outside the image,
 * under the threshold or outside `within`.
 */
export function growRegion(
  probability: Uint8Array,
  w: number,
  h: number,
  x: number,
  y: number,
  threshold: number,
  within?: Uint8Array,
): Uint8Array | null {
  if (probability.length !== w * h) throw new Error(`a probability map of ${w}x${h} needs ${w * h} values`);
  if (within && within.length !== w * h) throw new Error(`a limiting mask of ${w}x${h} needs ${w * h} values`);
  const sx = Math.floor(x);
  const sy = Math.floor(y);
  if (sx < 0 || sy < 0 || sx >= w || sy >= h) return null;
  const inside = (i: number) => probability[i] >= threshold && (!within || within[i] !== 0);
  const seed = sy * w + sx;
  if (!inside(seed)) return null;
  const region = new Uint8Array(w * h);
  const stack = new Int32Array(w * h);
  let top = 0;
  region[seed] = 1;
  stack[top++] = seed;
  while (top > 0) {
    const i = stack[--top];
    const px = i % w;
    const visit = (j: number) => {
      if (!region[j] && inside(j)) {
        region[j] = 1;
        stack[top++] = j;
      }
    };
    if (px > 0) visit(i - 1);
    if (px < w - 1) visit(i + 1);
    if (i >= w) visit(i - w);
    if (i < w * (h - 1)) visit(i + w);
  }
  return region;
}

/** `next` kept only inside `limit`: outside it, each pixel goes back to `before`'s (in place). */
export function limitTo(next: Uint8Array, before: Uint8Array, limit: Uint8Array): Uint8Array {
  for (let i = 0; i < next.length; i++) if (!limit[i]) next[i] = before[i];
  return next;
}
