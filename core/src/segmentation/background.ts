/**
 * Background colour model: the image border is clustered in CIELAB (k-means), every cluster that
 * covers a fair share of the border becomes a background mode. A pixel's fruit score is its
 * distance to the nearest mode, measured so that shadows and lighter patches of a background
 * (same chromaticity, scaled lightness) stay close to it while peel colours do not.
 */

export interface BackgroundMode {
  L: number;
  a: number;
  b: number;
  /** share of the border pixels in this cluster */
  weight: number;
  /** mean sRGB of its border pixels */
  rgb: [number, number, number];
  /**
   * darkest lightness still explained as a shadow of this background: a fraction of the lightest
   * mode of the same chromaticity (a border cluster that is itself a shadow does not lower it)
   */
  shadowFloor: number;
}

export interface LabPlanes {
  L: Float32Array;
  A: Float32Array;
  B: Float32Array;
}

/** Indices of the pixels in a ring of `ring` pixels along the image border. */
export function borderIndices(width: number, height: number, ring: number): Int32Array {
  const r = Math.max(1, Math.min(ring, Math.floor(Math.min(width, height) / 2)));
  const out: number[] = [];
  for (let y = 0; y < height; y++) {
    const inBand = y < r || y >= height - r;
    for (let x = 0; x < width; x++) {
      if (inBand || x < r || x >= width - r) out.push(y * width + x);
    }
  }
  return Int32Array.from(out);
}

/**
 * k-means (Lloyd, deterministic farthest-point start) of the given pixels in Lab. Returns the
 * cluster centres with their weights, largest first; clusters under `minWeight` are dropped.
 */
export function clusterBorder(
  lab: LabPlanes,
  rgba: Uint8ClampedArray,
  indices: Int32Array,
  k: number,
  minWeight: number,
): BackgroundMode[] {
  if (indices.length === 0) return [];
  // A few thousand samples describe the border well enough and keep this cheap.
  const stride = Math.max(1, Math.floor(indices.length / 6000));
  const n = Math.ceil(indices.length / stride);
  const picked = new Int32Array(n);
  const pL = new Float32Array(n);
  const pA = new Float32Array(n);
  const pB = new Float32Array(n);
  for (let s = 0; s < n; s++) {
    const i = indices[s * stride];
    picked[s] = i;
    pL[s] = lab.L[i];
    pA[s] = lab.A[i];
    pB[s] = lab.B[i];
  }
  // Start: the per-channel median, then repeatedly the sample farthest from every centre so far.
  const med = (p: Float32Array) => p.slice().sort()[n >> 1];
  const cL = new Float64Array(k);
  const cA = new Float64Array(k);
  const cB = new Float64Array(k);
  cL[0] = med(pL);
  cA[0] = med(pA);
  cB[0] = med(pB);
  let kk = 1;
  const nearest = new Float64Array(n).fill(Infinity);
  while (kk < k) {
    let best = -1;
    let bestD = 0;
    const l0 = cL[kk - 1],
      a0 = cA[kk - 1],
      b0 = cB[kk - 1];
    for (let s = 0; s < n; s++) {
      const dl = pL[s] - l0,
        da = pA[s] - a0,
        db = pB[s] - b0;
      const d = dl * dl + da * da + db * db;
      if (d < nearest[s]) nearest[s] = d;
      if (nearest[s] > bestD) {
        bestD = nearest[s];
        best = s;
      }
    }
    if (best < 0 || bestD < 16) break; // everything within 4 units of a centre: no more clusters
    cL[kk] = pL[best];
    cA[kk] = pA[best];
    cB[kk] = pB[best];
    kk++;
  }
  const assign = new Int32Array(n).fill(-1);
  const sL = new Float64Array(kk),
    sA = new Float64Array(kk),
    sB = new Float64Array(kk),
    count = new Float64Array(kk);
  for (let iter = 0; iter < 12; iter++) {
    sL.fill(0);
    sA.fill(0);
    sB.fill(0);
    count.fill(0);
    let changed = 0;
    for (let s = 0; s < n; s++) {
      const l = pL[s],
        a = pA[s],
        b = pB[s];
      let bc = 0;
      let bd = Infinity;
      for (let c = 0; c < kk; c++) {
        const dl = l - cL[c],
          da = a - cA[c],
          db = b - cB[c];
        const d = dl * dl + da * da + db * db;
        if (d < bd) {
          bd = d;
          bc = c;
        }
      }
      if (assign[s] !== bc) changed++;
      assign[s] = bc;
      sL[bc] += l;
      sA[bc] += a;
      sB[bc] += b;
      count[bc]++;
    }
    for (let c = 0; c < kk; c++) {
      if (count[c] === 0) continue;
      cL[c] = sL[c] / count[c];
      cA[c] = sA[c] / count[c];
      cB[c] = sB[c] / count[c];
    }
    if (changed === 0) break;
  }
  const cnt = new Float64Array(kk);
  const rgb = Array.from({ length: kk }, () => [0, 0, 0]);
  for (let s = 0; s < n; s++) {
    const c = assign[s];
    const p = picked[s] * 4;
    cnt[c]++;
    rgb[c][0] += rgba[p];
    rgb[c][1] += rgba[p + 1];
    rgb[c][2] += rgba[p + 2];
  }
  const modes: BackgroundMode[] = [];
  for (let c = 0; c < kk; c++) {
    if (cnt[c] === 0 || cnt[c] / n < minWeight) continue;
    modes.push({
      L: cL[c],
      a: cA[c],
      b: cB[c],
      weight: cnt[c] / n,
      rgb: [Math.round(rgb[c][0] / cnt[c]), Math.round(rgb[c][1] / cnt[c]), Math.round(rgb[c][2] / cnt[c])],
      shadowFloor: SHADOW_MIN * cL[c],
    });
  }
  modes.sort((x, y) => y.weight - x.weight);
  for (const m of modes) {
    for (const o of modes) {
      // Only a mode that could itself be a shadow of o (not a black surface beside a white one).
      if (o.L <= m.L || m.L < SHADOW_MIN * o.L) continue;
      const s = (o.L + 16) / (m.L + 16);
      if (Math.hypot(m.a * s - o.a, m.b * s - o.b) < SAME_CHROMA) {
        m.shadowFloor = Math.max(m.shadowFloor, SHADOW_MIN * o.L);
      }
    }
  }
  return modes;
}

/** Lightness ratios a background may take relative to its mode: shadows down to 25 %, glare to 130 %. */
const SHADOW_MIN = 0.25;
const LIGHT_MAX = 1.3;
/** Weight of the lightness excess beyond that range, relative to the chroma distance. */
const LIGHTNESS_WEIGHT = 1;
/** Two modes whose chroma, at equal lightness, differ by less than this are one surface. */
const SAME_CHROMA = 10;

/**
 * Distance of one Lab colour to a background mode: chroma compared after undoing the lightness
 * ratio (a shadow darkens a colour and shrinks its a*, b* roughly proportionally), plus the part of
 * the lightness change that no shadow or lighting change explains.
 */
export function modeDistance(L: number, a: number, b: number, m: BackgroundMode): number {
  let l = L;
  let excess = 0;
  if (L < m.shadowFloor) {
    excess = m.shadowFloor - L;
    l = m.shadowFloor;
  } else if (L > LIGHT_MAX * m.L) {
    excess = L - LIGHT_MAX * m.L;
    l = LIGHT_MAX * m.L;
  }
  // Compare chroma at the mode's lightness. Scaling a colour's XYZ by k scales L* + 16 and a*, b*
  // alike (by the cube root of k), so a shadow's chroma, scaled back, matches the mode's, while a
  // shaded peel's chroma, small in absolute terms, grows to its real saturation. Brighter patches
  // (glare) keep their chroma.
  const s = l < m.L ? (m.L + 16) / (l + 16) : 1;
  const da = a * s - m.a;
  const db = b * s - m.b;
  return Math.sqrt(da * da + db * db) + LIGHTNESS_WEIGHT * excess;
}

/**
 * Fruit score of every pixel: distance to the nearest background mode (modeDistance, with the
 * modes' constants unpacked into typed arrays and the square root taken once per pixel when no
 * lightness excess is involved).
 */
export function fruitScore(lab: LabPlanes, n: number, modes: BackgroundMode[], out = new Float32Array(n)) {
  const { L, A, B } = lab;
  const k = modes.length;
  const mL = Float64Array.from(modes, (m) => m.L);
  const mA = Float64Array.from(modes, (m) => m.a);
  const mB = Float64Array.from(modes, (m) => m.b);
  const floor = Float64Array.from(modes, (m) => m.shadowFloor);
  const light = Float64Array.from(modes, (m) => LIGHT_MAX * m.L);
  for (let i = 0; i < n; i++) {
    const Li = L[i];
    const ai = A[i];
    const bi = B[i];
    let best = Infinity;
    for (let m = 0; m < k; m++) {
      let l = Li;
      let excess = 0;
      if (Li < floor[m]) {
        excess = floor[m] - Li;
        l = floor[m];
      } else if (Li > light[m]) {
        excess = Li - light[m];
        l = light[m];
      }
      const s = l < mL[m] ? (mL[m] + 16) / (l + 16) : 1;
      const da = ai * s - mA[m];
      const db = bi * s - mB[m];
      const d2 = da * da + db * db;
      // sqrt(d2) + w * excess >= best needs no square root when sqrt(d2) alone is already >= best.
      if (d2 >= best * best) continue;
      const d = Math.sqrt(d2) + LIGHTNESS_WEIGHT * excess;
      if (d < best) best = d;
    }
    out[i] = best;
  }
  return out;
}

/** Otsu threshold of values in [0, max] with `bins` bins. */
export function otsuThreshold(values: Float32Array, max: number, bins = 256): number {
  const hist = new Float64Array(bins);
  const scale = (bins - 1) / max;
  for (let i = 0; i < values.length; i++) hist[Math.min(bins - 1, Math.max(0, Math.round(values[i] * scale)))]++;
  let total = 0,
    sum = 0;
  for (let k = 0; k < bins; k++) {
    total += hist[k];
    sum += k * hist[k];
  }
  let w0 = 0,
    s0 = 0,
    best = 0,
    bestK = 0;
  for (let k = 0; k < bins - 1; k++) {
    w0 += hist[k];
    s0 += k * hist[k];
    const w1 = total - w0;
    if (w0 === 0 || w1 === 0) continue;
    const m0 = s0 / w0;
    const m1 = (sum - s0) / w1;
    const between = w0 * w1 * (m0 - m1) ** 2;
    if (between > best) {
      best = between;
      bestK = k;
    }
  }
  return (bestK + 0.5) / scale;
}
