/**
 * Shape properties of the object (largest 8-connected component) as skimage 0.19 regionprops
 * computes them on the object's bounding-box image.
 */
import { maskCentroid } from '@mango/core';
import { convexArea } from './convexHull.ts';
import { erodeCross } from './maskOps.ts';

export interface ObjectImage {
  /** the object cropped to its bounding box */
  image: Uint8Array;
  width: number;
  height: number;
  area: number;
}

export function cropObject(object: Uint8Array, width: number, height: number): ObjectImage {
  let x0 = width,
    y0 = height,
    x1 = -1,
    y1 = -1,
    area = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      if (object[y * width + x]) {
        area++;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  const w = x1 - x0 + 1;
  const h = y1 - y0 + 1;
  const image = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) image.set(object.subarray((y0 + y) * width + x0, (y0 + y) * width + x0 + w), y * w);
  return { image, width: w, height: h, area };
}

/**
 * Central moments mu[p][q] (p: rows, q: columns, p, q <= 2) about the local centroid, summed
 * column by column as skimage's moments_central does.
 */
function centralMoments2(o: ObjectImage) {
  const { image, width, height } = o;
  const { x: cc, y: cr } = maskCentroid(image, width, height);
  const mu = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (let c = 0; c < width; c++) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let r = 0; r < height; r++)
      if (image[r * width + c]) {
        const d = r - cr;
        s0 += 1;
        s1 += d;
        s2 += d * d;
      }
    const dc = c - cc;
    const s = [s0, s1, s2];
    for (let p = 0; p < 3; p++) {
      mu[p][0] += s[p];
      mu[p][1] += s[p] * dc;
      mu[p][2] += s[p] * dc * dc;
    }
  }
  return mu;
}

/**
 * Eigenvalues of [[a, b], [b, c]] as LAPACK's dlae2 computes them (numpy.linalg.eigvalsh reaches it
 * through dsyevd -> dsterf, which passes sqrt(b^2) as the off-diagonal): the smaller one from the
 * product form, so it keeps its relative accuracy for thin objects.
 */
export function eigenvalues2x2(a: number, b0: number, c: number): [number, number] {
  const b = Math.sqrt(b0 * b0);
  const sm = a + c;
  const df = a - c;
  const adf = Math.abs(df);
  const ab = Math.abs(b + b);
  const [acmx, acmn] = Math.abs(a) > Math.abs(c) ? [a, c] : [c, a];
  let rt: number;
  if (adf > ab) rt = adf * Math.sqrt(1 + (ab / adf) ** 2);
  else if (adf < ab) rt = ab * Math.sqrt(1 + (adf / ab) ** 2);
  else rt = ab * Math.SQRT2;
  if (sm < 0) {
    const rt1 = 0.5 * (sm - rt);
    return [rt1, (acmx / rt1) * acmn - (b / rt1) * b];
  }
  if (sm > 0) {
    const rt1 = 0.5 * (sm + rt);
    return [rt1, (acmx / rt1) * acmn - (b / rt1) * b];
  }
  return [0.5 * rt, -0.5 * rt];
}

export function inertiaProperties(o: ObjectImage) {
  const mu = centralMoments2(o);
  const mu0 = mu[0][0];
  const trace = mu[2][0] + mu[0][2];
  // skimage: diagonal = (sum of the second moments - own moment) / mu0, off-diagonal = -mu11 / mu0
  const a = (trace - mu[2][0]) / mu0;
  const c = (trace - mu[0][2]) / mu0;
  const b = -mu[1][1] / mu0;
  const [e1, e2] = eigenvalues2x2(a, b, c);
  const l1 = Math.max(e1, e2, 0);
  const l2 = Math.max(Math.min(e1, e2), 0);
  const eccentricity = l1 === 0 ? 0 : Math.sqrt(1 - l2 / l1);
  let orientation: number;
  if (a - c === 0) orientation = b < 0 ? -Math.PI / 4 : Math.PI / 4;
  else orientation = 0.5 * Math.atan2(-2 * b, c - a);
  return {
    eccentricity,
    major_axis_length: 4 * Math.sqrt(l1),
    minor_axis_length: 4 * Math.sqrt(l2),
    orientation,
  };
}

const SQRT2 = Math.SQRT2;
const PERIMETER_WEIGHTS = (() => {
  const w = new Float64Array(50);
  for (const i of [5, 7, 15, 17, 25, 27]) w[i] = 1;
  w[21] = w[33] = SQRT2;
  w[13] = w[23] = (1 + SQRT2) / 2;
  return w;
})();

/** skimage.measure.perimeter(image, 4): weighted configurations of the 4-connected inner boundary. */
export function perimeter4(o: ObjectImage): number {
  const { image, width, height } = o;
  const eroded = erodeCross(image, width, height);
  // border pixels in a zero-padded copy so all 8 neighbours can be read without checks
  const pw = width + 2;
  const border = new Uint8Array(pw * (height + 2));
  for (let r = 0; r < height; r++)
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      border[(r + 1) * pw + c + 1] = image[i] && !eroded[i] ? 1 : 0;
    }
  const hist = new Float64Array(50);
  for (let r = 1; r <= height; r++)
    for (let p = r * pw + 1, end = p + width; p < end; p++) {
      if (!border[p]) continue;
      const code =
        1 +
        2 * (border[p - pw] + border[p + pw] + border[p - 1] + border[p + 1]) +
        10 * (border[p - pw - 1] + border[p - pw + 1] + border[p + pw - 1] + border[p + pw + 1]);
      hist[code]++;
    }
  let total = 0;
  for (let k = 0; k < 50; k++) total += hist[k] * PERIMETER_WEIGHTS[k];
  return total;
}

const PI = Math.PI;
const CROFTON4 = [
  0,
  (PI / 4) * (1 + 1 / Math.sqrt(2)),
  PI / (4 * Math.sqrt(2)),
  PI / (2 * Math.sqrt(2)),
  0,
  (PI / 4) * (1 + 1 / Math.sqrt(2)),
  0,
  PI / (4 * Math.sqrt(2)),
  PI / 4,
  PI / 2,
  PI / (4 * Math.sqrt(2)),
  PI / (4 * Math.sqrt(2)),
  PI / 4,
  PI / 2,
  0,
  0,
];

/** skimage.measure.perimeter_crofton(image, 4): 2x2 configuration counts of the zero-padded image. */
export function perimeterCrofton(o: ObjectImage): number {
  const { image, width, height } = o;
  // zero-padded copy with one more zero ring so every 2x2 configuration reads inside the array
  const pw = width + 3;
  const pad = new Uint8Array(pw * (height + 3));
  for (let r = 0; r < height; r++) pad.set(image.subarray(r * width, (r + 1) * width), (r + 2) * pw + 2);
  const hist = new Float64Array(16);
  // padded-image pixel (i, j), i in 0..height+1, sits at pad[(i + 1) * pw + j + 1]
  for (let i = 0; i < height + 2; i++) {
    const cur = (i + 1) * pw + 1;
    const up = i * pw + 1;
    for (let j = 0; j < width + 2; j++)
      hist[pad[cur + j] + 2 * pad[up + j] + 4 * pad[cur + j - 1] + 8 * pad[up + j - 1]]++;
  }
  let total = 0;
  for (let k = 0; k < 16; k++) total += CROFTON4[k] * hist[k];
  return total;
}

/** The three shape groups, each computed on first use (eccentricity alone needs no hull or perimeter). */
export function shapeFeatures(object: Uint8Array, width: number, height: number) {
  const o = cropObject(object, width, height);
  return {
    eccentricity: () => inertiaProperties(o),
    area: () => {
      const convex = convexArea(o.image, o.width, o.height);
      return {
        area: o.area,
        convex_area: convex,
        solidity: o.area / convex,
        extent: o.area / (o.width * o.height),
        equivalent_diameter: Math.sqrt((4 * o.area) / Math.PI),
        area_fraction: o.area / (width * height),
      };
    },
    perimeter: () => {
      const per = perimeter4(o);
      return {
        perimeter: per,
        perimeter_crofton: perimeterCrofton(o),
        circularity: per > 0 ? (4 * Math.PI * o.area) / per ** 2 : 0,
      };
    },
  };
}
