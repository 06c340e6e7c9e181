/**
 * Colour conversions shared by plugins, written once. Definitions follow scikit-image 0.19
 * (rgb2hsv, rgb2lab with illuminant D65 and the 2 degree observer, deltaE_ciede2000), which is the
 * reference the features plugin is tested against. Inputs are sRGB components in [0, 1].
 */

/** skimage.color.rgb2hsv for one pixel; h, s, v in [0, 1]. Ties for the maximum go to blue, then green. */
export function rgbToHsv(r: number, g: number, b: number, out: Float64Array | number[] = [0, 0, 0]) {
  const v = Math.max(r, g, b);
  const delta = v - Math.min(r, g, b);
  let h = 0;
  let s = 0;
  if (delta !== 0) {
    s = delta / v;
    if (b === v) h = 4 + (r - g) / delta;
    else if (g === v) h = 2 + (b - r) / delta;
    else h = (g - b) / delta;
    h = h / 6;
    h = h - Math.floor(h); // python's % 1.0
  }
  out[0] = h;
  out[1] = s;
  out[2] = v;
  return out;
}

/** sRGB gamma expansion as in skimage (threshold 0.04045). */
export function srgbToLinear(c: number): number {
  return c > 0.04045 ? Math.pow((c + 0.055) / 1.055, 2.4) : c / 12.92;
}

const WHITE_X = 0.95047;
const WHITE_Y = 1.0;
const WHITE_Z = 1.08883;

function labF(t: number): number {
  return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
}

/** skimage.color.rgb2lab (D65, 2 degrees) for one pixel. */
export function rgbToLab(r: number, g: number, b: number, out: Float64Array | number[] = [0, 0, 0]) {
  const rl = srgbToLinear(r);
  const gl = srgbToLinear(g);
  const bl = srgbToLinear(b);
  const x = 0.412453 * rl + 0.35758 * gl + 0.180423 * bl;
  const y = 0.212671 * rl + 0.71516 * gl + 0.072169 * bl;
  const z = 0.019334 * rl + 0.119193 * gl + 0.950227 * bl;
  const fx = labF(x / WHITE_X);
  const fy = labF(y / WHITE_Y);
  const fz = labF(z / WHITE_Z);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
  return out;
}

let linTable64: Float64Array | null = null;

/**
 * skimage.color.rgb2lab (D65, 2 degrees) of 8-bit components, in float64 with the gamma expansion
 * read from a 256-entry table: the same numbers as rgbToLab(r / 255, g / 255, b / 255), faster.
 */
export function rgb8ToLab(r8: number, g8: number, b8: number, out: Float64Array | number[] = [0, 0, 0]) {
  if (!linTable64) {
    linTable64 = new Float64Array(256);
    for (let i = 0; i < 256; i++) linTable64[i] = srgbToLinear(i / 255);
  }
  const rl = linTable64[r8];
  const gl = linTable64[g8];
  const bl = linTable64[b8];
  const fx = labF((0.412453 * rl + 0.35758 * gl + 0.180423 * bl) / WHITE_X);
  const fy = labF((0.212671 * rl + 0.71516 * gl + 0.072169 * bl) / WHITE_Y);
  const fz = labF((0.019334 * rl + 0.119193 * gl + 0.950227 * bl) / WHITE_Z);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
  return out;
}

/** Relative luminance of linear sRGB (Rec. 709 weights, 4 digits), as the colour card weighs and fits it. */
export function linearLuminance(r: number, g: number, b: number): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

let linTable: Float32Array | null = null;

/** The linearised value of each 8-bit sRGB level (256 entries), computed once. */
export function linearTable(): Float32Array {
  if (!linTable) {
    linTable = new Float32Array(256);
    for (let i = 0; i < 256; i++) linTable[i] = srgbToLinear(i / 255);
  }
  return linTable;
}

/** Converts an RGBA buffer to three Float32Array planes L, a, b (fast path for whole images). */
export function rgbaToLabPlanes(data: Uint8ClampedArray | Uint8Array, n: number) {
  const lin = linearTable();
  const L = new Float32Array(n);
  const A = new Float32Array(n);
  const B = new Float32Array(n);
  for (let i = 0, j = 0; i < n; i++, j += 4) {
    const rl = lin[data[j]];
    const gl = lin[data[j + 1]];
    const bl = lin[data[j + 2]];
    const fx = labF((0.412453 * rl + 0.35758 * gl + 0.180423 * bl) / WHITE_X);
    const fy = labF((0.212671 * rl + 0.71516 * gl + 0.072169 * bl) / WHITE_Y);
    const fz = labF((0.019334 * rl + 0.119193 * gl + 0.950227 * bl) / WHITE_Z);
    L[i] = 116 * fy - 16;
    A[i] = 500 * (fx - fy);
    B[i] = 200 * (fy - fz);
  }
  return { L, A, B };
}

const DEG = Math.PI / 180;

/** CIEDE2000 colour difference (kL = kC = kH = 1), as skimage.color.deltaE_ciede2000. */
export function deltaE2000(l1: number, a1: number, b1: number, l2: number, a2: number, b2: number): number {
  const c1 = Math.hypot(a1, b1);
  const c2 = Math.hypot(a2, b2);
  const cbar = (c1 + c2) / 2;
  const c7 = Math.pow(cbar, 7);
  const g = 0.5 * (1 - Math.sqrt(c7 / (c7 + Math.pow(25, 7))));
  const a1p = a1 * (1 + g);
  const a2p = a2 * (1 + g);
  const c1p = Math.hypot(a1p, b1);
  const c2p = Math.hypot(a2p, b2);
  const h1p = c1p === 0 ? 0 : (Math.atan2(b1, a1p) + 2 * Math.PI) % (2 * Math.PI);
  const h2p = c2p === 0 ? 0 : (Math.atan2(b2, a2p) + 2 * Math.PI) % (2 * Math.PI);
  const dL = l2 - l1;
  const dC = c2p - c1p;
  let dh = 0;
  if (c1p * c2p !== 0) {
    dh = h2p - h1p;
    if (dh > Math.PI) dh -= 2 * Math.PI;
    else if (dh < -Math.PI) dh += 2 * Math.PI;
  }
  const dH = 2 * Math.sqrt(c1p * c2p) * Math.sin(dh / 2);
  const lbar = (l1 + l2) / 2;
  const cbarp = (c1p + c2p) / 2;
  let hbarp = h1p + h2p;
  if (c1p * c2p !== 0) {
    if (Math.abs(h1p - h2p) > Math.PI) hbarp = hbarp < 2 * Math.PI ? hbarp + 2 * Math.PI : hbarp - 2 * Math.PI;
    hbarp /= 2;
  }
  const t =
    1 -
    0.17 * Math.cos(hbarp - 30 * DEG) +
    0.24 * Math.cos(2 * hbarp) +
    0.32 * Math.cos(3 * hbarp + 6 * DEG) -
    0.2 * Math.cos(4 * hbarp - 63 * DEG);
  const dTheta = 30 * DEG * Math.exp(-Math.pow((hbarp / DEG - 275) / 25, 2));
  const cbarp7 = Math.pow(cbarp, 7);
  const rc = 2 * Math.sqrt(cbarp7 / (cbarp7 + Math.pow(25, 7)));
  const l50 = (lbar - 50) * (lbar - 50);
  const sl = 1 + (0.015 * l50) / Math.sqrt(20 + l50);
  const sc = 1 + 0.045 * cbarp;
  const sh = 1 + 0.015 * cbarp * t;
  const rt = -Math.sin(2 * dTheta) * rc;
  const tl = dL / sl;
  const tc = dC / sc;
  const th = dH / sh;
  return Math.sqrt(tl * tl + tc * tc + th * th + rt * tc * th);
}

/** sRGB gamma compression (IEC 61966-2-1), the inverse of srgbToLinear; input linear in [0, 1]. */
export function linearToSrgb(c: number): number {
  return c > 0.0031308 ? 1.055 * Math.pow(c, 1 / 2.4) - 0.055 : 12.92 * c;
}

/** Linear sRGB of the white of a blackbody at `kelvin` (Kim et al. 2002 fit of the Planckian locus), Y = 1. */
export function blackbodyWhite(kelvin: number): number[] {
  const t = kelvin;
  const x =
    t <= 4000
      ? -0.2661239e9 / t ** 3 - 0.2343589e6 / t ** 2 + 0.8776956e3 / t + 0.17991
      : -3.0258469e9 / t ** 3 + 2.1070379e6 / t ** 2 + 0.2226347e3 / t + 0.24039;
  const y =
    t <= 2222
      ? -1.1063814 * x ** 3 - 1.3481102 * x ** 2 + 2.18555832 * x - 0.20219683
      : t <= 4000
        ? -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
        : 3.081758 * x ** 3 - 5.8733867 * x ** 2 + 3.75112997 * x - 0.37001483;
  const X = x / y;
  const Z = (1 - x - y) / y;
  return [
    3.2404542 * X - 1.5371385 - 0.4985314 * Z,
    -0.969266 * X + 1.8760108 + 0.041556 * Z,
    0.0556434 * X - 0.2040259 + 1.0572252 * Z,
  ];
}

// Colorimetry for reference charts measured under D50 (ICC profile connection space): exact CIE
// constants, the IEC 61966-2-1 sRGB matrices and the Bradford chromatic adaptation D65 <-> D50.
const D50 = [0.96422, 1, 0.82521] as const;
const LAB_EPSILON = 216 / 24389;
const LAB_KAPPA = 24389 / 27;
/** linear sRGB (D65) -> XYZ D50: the sRGB matrix followed by Bradford D65 -> D50 */
const SRGB_TO_XYZ_D50 = [
  [0.4360747, 0.3850649, 0.1430804],
  [0.2225045, 0.7168786, 0.0606169],
  [0.0139322, 0.0971045, 0.7141733],
];
/** XYZ D50 -> linear sRGB (D65): Bradford D50 -> D65 followed by the inverse sRGB matrix */
const XYZ_D50_TO_SRGB = [
  [3.1338569, -1.616867, -0.4906147],
  [-0.9787688, 1.9161416, 0.033454],
  [0.0719453, -0.2289913, 1.4052427],
];

/** Linear sRGB (may lie outside 0..1) -> CIE L*a*b* relative to D50. */
export function linearRgbToLabD50(r: number, g: number, b: number, out: Float64Array | number[] = [0, 0, 0]) {
  const f = (t: number) => (t > LAB_EPSILON ? Math.cbrt(t) : (LAB_KAPPA * t + 16) / 116);
  const m = SRGB_TO_XYZ_D50;
  const fx = f((m[0][0] * r + m[0][1] * g + m[0][2] * b) / D50[0]);
  const fy = f((m[1][0] * r + m[1][1] * g + m[1][2] * b) / D50[1]);
  const fz = f((m[2][0] * r + m[2][1] * g + m[2][2] * b) / D50[2]);
  out[0] = 116 * fy - 16;
  out[1] = 500 * (fx - fy);
  out[2] = 200 * (fy - fz);
  return out;
}

/** CIE L*a*b* relative to D50 -> linear sRGB (unclipped: saturated colours may leave 0..1). */
export function labD50ToLinearRgb(L: number, a: number, b: number, out: Float64Array | number[] = [0, 0, 0]) {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inv = (f: number) => (f * f * f > LAB_EPSILON ? f * f * f : (116 * f - 16) / LAB_KAPPA);
  const x = inv(fx) * D50[0];
  const y = (L > LAB_KAPPA * LAB_EPSILON ? fy * fy * fy : L / LAB_KAPPA) * D50[1];
  const z = inv(fz) * D50[2];
  const m = XYZ_D50_TO_SRGB;
  out[0] = m[0][0] * x + m[0][1] * y + m[0][2] * z;
  out[1] = m[1][0] * x + m[1][1] * y + m[1][2] * z;
  out[2] = m[2][0] * x + m[2][1] * y + m[2][2] * z;
  return out;
}
