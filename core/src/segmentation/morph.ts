/**
 * Fast disk morphology for the working copy: one exact Euclidean distance transform
 * (Felzenszwalb-Huttenlocher, typed arrays, no per-pixel closures) per operation, whatever the
 * radius. Pixels outside the image are ignored (neither fruit nor background), so a fruit cut by
 * the frame keeps its edge through an opening.
 */

const INF = 1e20;

/** Squared distance of every pixel to the nearest pixel whose mask value equals `target`. */
export function distanceSquared(mask: Uint8Array, w: number, h: number, target: 0 | 1): Float32Array {
  const n = w * h;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = mask[i] === target ? 0 : INF;
  const len = Math.max(w, h);
  const f = new Float64Array(len);
  const d = new Float64Array(len);
  const v = new Int32Array(len);
  const z = new Float64Array(len + 1);
  const pass = (count: number) => {
    let k = 0;
    v[0] = 0;
    z[0] = -INF;
    z[1] = INF;
    for (let q = 1; q < count; q++) {
      if (f[q] >= INF) continue;
      if (f[v[k]] >= INF) {
        v[k] = q;
        continue;
      }
      let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
      while (s <= z[k]) {
        k--;
        s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = INF;
    }
    if (f[v[0]] >= INF) {
      for (let q = 0; q < count; q++) d[q] = INF;
      return;
    }
    k = 0;
    for (let q = 0; q < count; q++) {
      while (z[k + 1] < q) k++;
      const dq = q - v[k];
      d[q] = dq * dq + f[v[k]];
    }
  };
  for (let x = 0; x < w; x++) {
    for (let y = 0; y < h; y++) f[y] = out[y * w + x];
    pass(h);
    for (let y = 0; y < h; y++) out[y * w + x] = d[y];
  }
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) f[x] = out[row + x];
    pass(w);
    for (let x = 0; x < w; x++) out[row + x] = d[x];
  }
  return out;
}

export function dilate(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  const d = distanceSquared(mask, w, h, 1);
  const r2 = r * r;
  const out = new Uint8Array(d.length);
  for (let i = 0; i < d.length; i++) out[i] = d[i] <= r2 ? 1 : 0;
  return out;
}

export function erode(mask: Uint8Array, w: number, h: number, r: number): Uint8Array {
  if (r <= 0) return mask.slice();
  const d = distanceSquared(mask, w, h, 0);
  const r2 = r * r;
  const out = new Uint8Array(d.length);
  for (let i = 0; i < d.length; i++) out[i] = d[i] > r2 ? 1 : 0;
  return out;
}

export const open = (m: Uint8Array, w: number, h: number, r: number) => dilate(erode(m, w, h, r), w, h, r);
export const close = (m: Uint8Array, w: number, h: number, r: number) => erode(dilate(m, w, h, r), w, h, r);
