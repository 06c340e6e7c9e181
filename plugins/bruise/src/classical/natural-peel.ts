/**
 * Natural-peel filters: lesion candidates that are shading, unripe green or pigment rather than
 * tissue damage, told apart by their colour against the peel background and by their edge.
 */
import type { FruitCrop } from './crop.ts';
import type { PeelBackground } from './peel-background.ts';
import { isGreener, shadingB } from './rules.ts';

/** Lesions whose ring of peel just outside is still at least this share as dark as the lesion are soft-edged: shading or colour patches. */
const EDGE_CONTRAST_MIN = 0.7;
/**
 * ...unless the lesion has lost more than this much b* against pure shading of its peel: a bruise
 * or rot that fades out gently is still tissue damage. 6: the smallest value that keeps pure
 * shading dropped in the synthetic tests (4 marked a broad one-sided shadow) and still finds a brown
 * bruise fading out over 16 px (8 did not); dev sets: senmango AUC 0.927 -> 0.926, Stem end Rot
 * median 6.2 % -> 7.0 %.
 */
const EDGE_RULE_YELLOW_LOSS = 6;
/** Width of that ring, as a fraction of the fruit diameter. */
const RING_WIDTH = 0.03;
/** ...and at least this many pixels wide, so small fruit still get a ring that shows an edge. */
const MIN_RING_STEPS = 2;
/** A lesion keeping this much more b* than pure shading of its peel would leave is natural pigment. */
const SATURATION_SLACK = 4;

/**
 * Marks in `drop` the lesions that are natural peel rather than tissue damage, from the colour of the
 * lesion against its peel background (means over the lesion):
 * - soft edge: the ring of RING_WIDTH x diameter just outside is on average darker than the
 *   background by more than (1 - EDGE_CONTRAST_MIN) of the lesion's own mean darkening (a shaded side
 *   or a darker colour patch fades out; a lesion has an edge), unless it has lost more than
 *   EDGE_RULE_YELLOW_LOSS b* against pure shading (a bruise that fades out gently);
 * - greener: mean a* < 0 and more than GREENER (rules.ts) below the background a* (unripe green patch);
 * - as saturated as shading: pure shading scales L*+16, a*, b* by one factor, so the b* shading would
 *   leave is bgB x (L + 16) / (bgL + 16); a darker region with more than SATURATION_SLACK more b* than
 *   that has kept (or deepened) its pigment: a colour patch. Bruised and rotten tissue loses yellow.
 */
export function dropNaturalPeel(
  crop: FruitCrop,
  bg: PeelBackground,
  lesions: { labels: Int32Array; areas: number[]; count: number },
  drop: Uint8Array,
): void {
  const { width: w, fruit, L, A, B, diameter } = crop;
  const { labels, areas, count } = lesions;
  const n = L.length;
  const K = count + 1;
  const core = new Float64Array(K);
  const ringE = new Float64Array(K);
  const ringN = new Float64Array(K);
  const sa = new Float64Array(K);
  const sda = new Float64Array(K);
  const sb = new Float64Array(K);
  const sbgb = new Float64Array(K);
  const sL = new Float64Array(K);
  const sbgL = new Float64Array(K);
  const own = new Int32Array(n);
  const queue = new Int32Array(n);
  let qe = 0;
  for (let i = 0; i < n; i++) {
    const k = labels[i];
    if (!k) continue;
    own[i] = k;
    queue[qe++] = i;
    core[k] += bg.L[i] - L[i];
    sa[k] += A[i];
    sda[k] += A[i] - bg.a[i];
    sb[k] += B[i];
    sbgb[k] += bg.b[i];
    sL[k] += L[i];
    sbgL[k] += bg.L[i];
  }
  // The ring: breadth-first from all lesions at once (each ring pixel belongs to the nearest lesion).
  const steps = Math.max(MIN_RING_STEPS, Math.round(RING_WIDTH * diameter));
  let qs = 0;
  for (let st = 1; st <= steps; st++) {
    const end = qe;
    for (; qs < end; qs++) {
      const i = queue[qs];
      const x = i % w;
      const k = own[i];
      for (let t = 0; t < 4; t++) {
        const j = t === 0 ? (x > 0 ? i - 1 : -1) : t === 1 ? (x < w - 1 ? i + 1 : -1) : t === 2 ? i - w : i + w;
        if (j < 0 || j >= n || own[j] || !fruit[j]) continue;
        own[j] = k;
        queue[qe++] = j;
        ringE[k] += bg.L[j] - L[j];
        ringN[k]++;
      }
    }
  }
  for (let k = 1; k <= count; k++) {
    if (drop[k]) continue;
    const a = areas[k];
    const contrast = 1 - (ringN[k] ? ringE[k] / ringN[k] : 0) / Math.max(1e-6, core[k] / a);
    const greener = isGreener(sa[k] / a, sda[k] / a);
    const shadedB = shadingB(sbgb[k] / a, sbgL[k] / a, sL[k] / a);
    const pigment = sb[k] / a - shadedB > SATURATION_SLACK;
    const losesYellow = shadedB - sb[k] / a > EDGE_RULE_YELLOW_LOSS;
    if ((contrast < EDGE_CONTRAST_MIN && !losesYellow) || greener || pigment) drop[k] = 1;
  }
}
