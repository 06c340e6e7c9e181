/**
 * Binary masks (Uint8Array, 1 = set, row-major) and the morphology every plugin shares:
 * connected components, hole filling, erosion and dilation. Written once, imported everywhere.
 */

export interface Mask {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface Components {
  /** 0 = background, 1..count = component label in raster order of first pixel */
  labels: Int32Array;
  count: number;
  /** areas[k] = pixel count of label k (areas[0] = 0) */
  areas: number[];
}

/**
 * Labels connected components (connectivity 4 or 8) with a two-pass union-find; labels are
 * numbered in raster order of each component's first pixel, as skimage.measure.label does.
 */
export function labelComponents(mask: Uint8Array, width: number, height: number, connectivity: 4 | 8 = 8): Components {
  const n = width * height;
  const labels = new Int32Array(n);
  // Union-find over provisional labels in a typed array (grown on demand): fast on megapixel masks.
  let parent = new Int32Array(1024);
  const find = (a: number) => {
    while (parent[a] !== a) {
      parent[a] = parent[parent[a]];
      a = parent[a];
    }
    return a;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra < rb) parent[rb] = ra;
    else if (rb < ra) parent[ra] = rb;
  };
  const eight = connectivity === 8;
  let next = 1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) {
      const i = row + x;
      if (!mask[i]) continue;
      let l = 0;
      // neighbours already visited: left, up, and (8-connectivity) up-left, up-right
      if (x > 0 && labels[i - 1]) l = labels[i - 1];
      if (y > 0) {
        const up = labels[i - width];
        if (up) {
          if (!l) l = up;
          else if (up !== l) union(l, up);
        }
        if (eight) {
          if (x > 0) {
            const ul = labels[i - width - 1];
            if (ul) {
              if (!l) l = ul;
              else if (ul !== l) union(l, ul);
            }
          }
          if (x < width - 1) {
            const ur = labels[i - width + 1];
            if (ur) {
              if (!l) l = ur;
              else if (ur !== l) union(l, ur);
            }
          }
        }
      }
      if (!l) {
        l = next++;
        if (l >= parent.length) {
          const grown = new Int32Array(parent.length * 2);
          grown.set(parent);
          parent = grown;
        }
        parent[l] = l;
      }
      labels[i] = l;
    }
  }
  // Resolve roots and renumber in raster order of first appearance.
  const remap = new Int32Array(next);
  let count = 0;
  const areas: number[] = [0];
  for (let i = 0; i < n; i++) {
    const l = labels[i];
    if (!l) continue;
    const r = find(l);
    if (!remap[r]) {
      remap[r] = ++count;
      areas.push(0);
    }
    const k = remap[r];
    labels[i] = k;
    areas[k]++;
  }
  return { labels, count, areas };
}

/** The largest component (ties: the first in raster order) as a new mask, or null when empty. */
export function largestComponent(mask: Uint8Array, width: number, height: number, connectivity: 4 | 8 = 8) {
  const { labels, count, areas } = labelComponents(mask, width, height, connectivity);
  if (count === 0) return null;
  let best = 1;
  for (let k = 2; k <= count; k++) if (areas[k] > areas[best]) best = k;
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = labels[i] === best ? 1 : 0;
  return out;
}

/** Sets every background pixel not 4-connected to the image border (holes inside objects). */
export function fillHoles(mask: Uint8Array, width: number, height: number): Uint8Array {
  const out = mask.slice();
  fillHolesInPlace(out, width, height);
  return out;
}

/**
 * fillHoles on the mask itself (0/1 afterwards): background not 4-connected to the image border
 * becomes set. One flood from the border with a typed-array stack.
 */
export function fillHolesInPlace(mask: Uint8Array, w: number, h: number): void {
  const n = w * h;
  const OUTSIDE = 2;
  const stack = new Int32Array(n);
  let top = 0;
  const seed = (i: number) => {
    if (!mask[i]) {
      mask[i] = OUTSIDE;
      stack[top++] = i;
    }
  };
  for (let x = 0; x < w; x++) {
    seed(x);
    seed((h - 1) * w + x);
  }
  for (let y = 0; y < h; y++) {
    seed(y * w);
    seed(y * w + w - 1);
  }
  while (top > 0) {
    const i = stack[--top];
    const x = i % w;
    if (x > 0 && !mask[i - 1]) {
      mask[i - 1] = OUTSIDE;
      stack[top++] = i - 1;
    }
    if (x < w - 1 && !mask[i + 1]) {
      mask[i + 1] = OUTSIDE;
      stack[top++] = i + 1;
    }
    if (i >= w && !mask[i - w]) {
      mask[i - w] = OUTSIDE;
      stack[top++] = i - w;
    }
    if (i + w < n && !mask[i + w]) {
      mask[i + w] = OUTSIDE;
      stack[top++] = i + w;
    }
  }
  for (let i = 0; i < n; i++) mask[i] = mask[i] === OUTSIDE ? 0 : 1;
}

/**
 * Square structuring element as two running-count passes (rows, then columns with one count per
 * column carried down the image, so both passes read memory in order). Pixels outside the image
 * count as background for both operations (border_value = 0).
 */
function squareFilter(mask: Uint8Array, width: number, height: number, r: number, dilate: boolean): Uint8Array {
  if (r <= 0) return mask.slice();
  const tmp = new Uint8Array(width * height);
  const out = new Uint8Array(width * height);
  const target = dilate ? 1 : 0;
  const prefix = new Int32Array(width + 1);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) prefix[x + 1] = prefix[x] + (mask[row + x] === target ? 1 : 0);
    for (let x = 0; x < width; x++) {
      const hits = prefix[Math.min(width - 1, x + r) + 1] - prefix[Math.max(0, x - r)];
      if (dilate) tmp[row + x] = hits > 0 ? 1 : 0;
      else tmp[row + x] = hits > 0 || x - r < 0 || x + r > width - 1 ? 0 : 1;
    }
  }
  // counts[x] = pixels equal to `target` in column x over rows [y - r, y + r] clipped to the image.
  const counts = new Int32Array(width);
  for (let y = 0; y <= Math.min(r, height - 1); y++) {
    const row = y * width;
    for (let x = 0; x < width; x++) if (tmp[row + x] === target) counts[x]++;
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const outOfImage = y - r < 0 || y + r > height - 1;
    for (let x = 0; x < width; x++) {
      const hits = counts[x];
      if (dilate) out[row + x] = hits > 0 ? 1 : 0;
      else out[row + x] = hits > 0 || outOfImage ? 0 : 1;
    }
    const add = y + r + 1;
    if (add < height) {
      const ra = add * width;
      for (let x = 0; x < width; x++) if (tmp[ra + x] === target) counts[x]++;
    }
    const drop = y - r;
    if (drop >= 0) {
      const rd = drop * width;
      for (let x = 0; x < width; x++) if (tmp[rd + x] === target) counts[x]--;
    }
  }
  return out;
}

export function dilateSquare(mask: Uint8Array, width: number, height: number, r: number) {
  return squareFilter(mask, width, height, r, true);
}

export function erodeSquare(mask: Uint8Array, width: number, height: number, r: number) {
  return squareFilter(mask, width, height, r, false);
}

/**
 * Pixels outside the image during a disk erosion: 'unset' (scikit-image's border_value = 0, so a
 * set pixel within r of the border erodes) or 'ignore' (neither set nor unset: a fruit cut by the
 * frame keeps its edge along the frame).
 */
export type DiskBorder = 'unset' | 'ignore';

/**
 * Binary morphology with the Euclidean disk {(dx, dy): dx^2 + dy^2 <= r^2} (scikit-image's
 * `disk(r)`): each output pixel tests the 2r + 1 row spans of the disk (half-width
 * floor(sqrt(r^2 - dy^2))) in O(1) each from a summed-area table, stopping at the first span that
 * decides. At most O(n r); no distance transform.
 */
function diskFilter(mask: Uint8Array, width: number, height: number, r: number, dilate: boolean, border: DiskBorder) {
  if (r <= 0) return mask.slice();
  // Summed-area table: the (2r+1)^2 square around a pixel decides most pixels in one lookup
  // (no set pixel in it: not dilated; all set and inside the image: not eroded); only pixels near
  // an edge test the disk's 2r + 1 row spans.
  const W1 = width + 1;
  const sat = new Int32Array(W1 * (height + 1));
  for (let y = 0; y < height; y++) {
    let run = 0;
    const row = y * width;
    const p = (y + 1) * W1;
    for (let x = 0; x < width; x++) {
      run += mask[row + x] ? 1 : 0;
      sat[p + x + 1] = sat[p - W1 + x + 1] + run;
    }
  }
  const count = (x0: number, y0: number, x1: number, y1: number) =>
    sat[(y1 + 1) * W1 + x1 + 1] - sat[y0 * W1 + x1 + 1] - sat[(y1 + 1) * W1 + x0] + sat[y0 * W1 + x0];
  const half = new Int32Array(r + 1);
  for (let d = 0; d <= r; d++) half[d] = Math.floor(Math.sqrt(r * r - d * d));
  const strict = border === 'unset';
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const sy0 = y - r < 0 ? 0 : y - r;
    const sy1 = y + r >= height ? height - 1 : y + r;
    const clippedY = sy1 - sy0 < 2 * r;
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      if (!dilate && !mask[i]) continue;
      const sx0 = x - r < 0 ? 0 : x - r;
      const sx1 = x + r >= width ? width - 1 : x + r;
      const inSquare = count(sx0, sy0, sx1, sy1);
      if (dilate) {
        if (inSquare === 0) continue;
      } else {
        if (strict && (clippedY || sx1 - sx0 < 2 * r)) {
          // Part of the disk lies outside the image; only the disk's corners may, which the
          // spans below sort out.
        } else if (inSquare === (sx1 - sx0 + 1) * (sy1 - sy0 + 1)) {
          out[i] = 1;
          continue;
        }
      }
      let hit = !dilate;
      for (let dy = -r; dy <= r; dy++) {
        const yy = y + dy;
        const hw = half[dy < 0 ? -dy : dy];
        if (yy < 0 || yy >= height) {
          if (!dilate && strict) {
            hit = false;
            break;
          }
          continue;
        }
        const x0 = x - hw < 0 ? 0 : x - hw;
        const x1 = x + hw >= width ? width - 1 : x + hw;
        const set = count(x0, yy, x1, yy);
        if (dilate) {
          if (set > 0) {
            hit = true;
            break;
          }
        } else if (set < x1 - x0 + 1 || (strict && x1 - x0 < 2 * hw)) {
          hit = false;
          break;
        }
      }
      if (hit) out[i] = 1;
    }
  }
  return out;
}

/** Disk dilation (pixels outside the image are unset). */
export function dilateDisk(mask: Uint8Array, width: number, height: number, r: number) {
  return diskFilter(mask, width, height, r, true, 'unset');
}

/** Disk erosion: a pixel stays when no unset pixel lies within distance r (see DiskBorder). */
export function erodeDisk(mask: Uint8Array, width: number, height: number, r: number, border: DiskBorder = 'unset') {
  return diskFilter(mask, width, height, r, false, border);
}

export const openDisk = (m: Uint8Array, w: number, h: number, r: number, border: DiskBorder = 'unset') =>
  dilateDisk(erodeDisk(m, w, h, r, border), w, h, r);
export const closeDisk = (m: Uint8Array, w: number, h: number, r: number, border: DiskBorder = 'unset') =>
  erodeDisk(dilateDisk(m, w, h, r), w, h, r, border);

/**
 * Squared Euclidean distance of every pixel of `mask` to the nearest unset pixel, pixels outside
 * the w x h crop counting as unset (Felzenszwalb-Huttenlocher: exact column distances by two scans,
 * then the lower envelope of parabolas along each row).
 */
export function outlineDistanceSquared(mask: Uint8Array, w: number, h: number): Float32Array {
  const g = new Float64Array(w * h);
  // Column distances, all columns at once row by row (the order the pixels lie in memory): down, the
  // distance to the nearest unset pixel above (row -1 is unset), then up, the nearer of that and below.
  const d = new Float64Array(w);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      d[x] = mask[row + x] ? d[x] + 1 : 0;
      g[row + x] = d[x];
    }
  }
  d.fill(0);
  for (let y = h - 1; y >= 0; y--) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      d[x] = mask[row + x] ? d[x] + 1 : 0;
      if (d[x] < g[row + x]) g[row + x] = d[x];
    }
  }
  const out = new Float32Array(w * h);
  // Row pass over positions -1..w (the two virtual unset pixels at the ends), shifted by 1.
  const total = w + 2;
  const f = new Float64Array(total);
  const v = new Int32Array(total);
  const z = new Float64Array(total + 1);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    f[0] = 0;
    f[total - 1] = 0;
    for (let x = 0; x < w; x++) {
      const c = g[row + x];
      f[x + 1] = c * c;
    }
    let k = 0;
    v[0] = 0;
    z[0] = -Infinity;
    z[1] = Infinity;
    for (let q = 1; q < total; q++) {
      let s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
      while (s <= z[k]) {
        k--;
        s = (f[q] + q * q - (f[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
      }
      k++;
      v[k] = q;
      z[k] = s;
      z[k + 1] = Infinity;
    }
    k = 0;
    for (let q = 0; q < total; q++) {
      while (z[k + 1] < q) k++;
      if (q >= 1 && q <= w) out[row + q - 1] = (q - v[k]) * (q - v[k]) + f[v[k]];
    }
  }
  return out;
}

export function countSet(mask: Uint8Array): number {
  let c = 0;
  for (let i = 0; i < mask.length; i++) c += mask[i];
  return c;
}

/** Bounding box of set pixels, or null when none. */
export function boundingBox(mask: Uint8Array, width: number, height: number) {
  let x0 = width,
    y0 = height,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (mask[y * width + x]) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return x1 < 0 ? null : { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}
