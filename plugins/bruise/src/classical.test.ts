/**
 * Unit tests of the classical detector's natural-peel filters (soft edge, greener, pigment), its blush
 * rule and its small dark-spot detector, on synthetic fruit: a yellow-orange ellipse (about 200 x 150
 * px, equivalent diameter ~173 px) with mild shading toward the outline, lit a little more from the
 * left, per-channel noise of +-3, on a grey background; fruit labels from the same ellipse.
 * Each negative scene is one the detector does mark when its rule is switched off (checked on a copy
 * of classical.ts with that rule disabled; the share found without the rule is noted per test).
 */
import { describe, expect, it } from 'vitest';
import { fruitScene as syntheticScene } from '@mango/core/testing';
import { classicalBruiseMask, fruitBlockFactor } from './classical.ts';

const W = 240;
const H = 180;
const CX = 120;
const CY = 90;
const AX = 100;
const AY = 75;

type Rgb = [number, number, number];

/** Mild shading toward the outline, lit a little more from the left. */
function shade(u: number, v: number) {
  const d = u * u + v * v;
  return (1 - 0.25 * d * d) * (1 - 0.1 * u);
}

/** A disc of changed peel: inside radius r the shaded peel is multiplied by `mul` per channel; over the
 * next `feather` px the change fades out (cos²), so the half-maximum outline lies at about r + feather / 2. */
interface Patch {
  cx: number;
  cy: number;
  r: number;
  feather?: number;
  mul: Rgb;
}

/** Brown bruise: ~34 L* darker, and loses yellow (b* ~9 below what pure shading would leave). */
const BRUISE: Rgb = [0.58, 0.5, 0.8];
/** Dark-brown rot spot (anthracnose-like). */
const SPOT: Rgb = [0.45, 0.36, 0.55];

/** The scene; `scale` enlarges it (fruit, patches and picture; the noise stays per pixel). */
function fruitScene(patches: Patch[], seed = 1, scale = 1) {
  const { image, labels, areas } = syntheticScene({
    width: W * scale,
    height: H * scale,
    background: [128, 128, 128],
    fruits: [{ cx: CX * scale, cy: CY * scale, rx: AX * scale, ry: AY * scale, peel: [230, 180, 55], shade }],
    seed,
    noisePer: 'channel',
    paint: (rgb, x, y) => {
      for (const p of patches) {
        const rr = Math.hypot(x / scale - p.cx, y / scale - p.cy);
        const f = p.feather ?? 0;
        const t = rr <= p.r ? 1 : rr >= p.r + f ? 0 : Math.cos((((rr - p.r) / f) * Math.PI) / 2) ** 2;
        if (t > 0) rgb = rgb.map((c, j) => c * (1 - t + t * p.mul[j]));
      }
      return rgb;
    },
  });
  return { image, labels, fruitArea: areas[1], mask: classicalBruiseMask(image, labels, 1) };
}

const count = (m: Uint8Array) => m.reduce((a, b) => a + b, 0);

/** Pixels of the mask within distance `within` of the patch centre, and the pixels there (scene coordinates). */
function inDisc(mask: Uint8Array, cx: number, cy: number, within: number, scale = 1) {
  let marked = 0;
  let total = 0;
  for (let y = 0; y < H * scale; y++)
    for (let x = 0; x < W * scale; x++)
      if (Math.hypot(x / scale - cx, y / scale - cy) <= within) {
        total++;
        marked += mask[y * W * scale + x];
      }
  return { marked, total };
}

describe('classicalBruiseMask, synthetic peel', () => {
  it('finds nothing on clean peel and a feathered brown bruise at its half-maximum outline', () => {
    expect(count(fruitScene([]).mask)).toBe(0);
    const bruise: Patch = { cx: 85, cy: 95, r: 16, feather: 6, mul: BRUISE };
    const { mask, labels } = fruitScene([bruise], 2);
    const half = inDisc(mask, bruise.cx, bruise.cy, bruise.r + bruise.feather! / 2);
    // (measured: 1104 of the 1129 half-maximum pixels).
    expect(Math.abs(count(mask) - half.total) / half.total).toBeLessThan(0.05);
    expect(half.marked / half.total).toBeGreaterThan(0.95);
    // Nothing outside the feathered disc, nothing off the fruit.
    expect(inDisc(mask, bruise.cx, bruise.cy, bruise.r + bruise.feather!).marked).toBe(count(mask));
    for (let i = 0; i < mask.length; i++) if (mask[i]) expect(labels[i]).toBe(1);
  });

  it('processes a fruit above MAX_WORKING_FRUIT_PIXELS on blocks, with the same outline', () => {
    // The first test's scene at 2.5x: the fruit (~147 000 px) runs on 2 x 2 blocks (~37 000).
    const scale = 2.5;
    const bruise: Patch = { cx: 85, cy: 95, r: 16, feather: 6, mul: BRUISE };
    const { mask, labels, fruitArea } = fruitScene([bruise], 2, scale);
    expect(fruitBlockFactor(fruitArea)).toBe(2);
    const half = inDisc(mask, bruise.cx, bruise.cy, bruise.r + bruise.feather! / 2, scale);
    expect(Math.abs(count(mask) - half.total) / half.total).toBeLessThan(0.05);
    expect(half.marked / half.total).toBeGreaterThan(0.95);
    expect(inDisc(mask, bruise.cx, bruise.cy, bruise.r + bruise.feather!, scale).marked).toBe(count(mask));
    for (let i = 0; i < mask.length; i++) if (mask[i]) expect(labels[i]).toBe(1);
    expect(count(fruitScene([], 1, scale).mask)).toBe(0);
  });

  it('finds a brown bruise that fades out gently (the edge rule spares tissue that lost yellow)', () => {
    // With a 16 px fade the ring outside holds > 30 % of the darkening: soft-edged. Its colour
    // (b* ~9 below pure shading) still says bruise; before EDGE_RULE_YELLOW_LOSS it was dropped (0 px).
    const bruise: Patch = { cx: 85, cy: 95, r: 16, feather: 16, mul: BRUISE };
    const { mask } = fruitScene([bruise], 2);
    const half = inDisc(mask, bruise.cx, bruise.cy, bruise.r + bruise.feather! / 2);
    expect(half.marked / half.total).toBeGreaterThan(0.8);
    expect(count(mask)).toBeLessThan(1.2 * half.total);
  });

  it('does not call soft-edged shading bruise (edge-contrast rule)', () => {
    // Pure shading (all channels scaled alike) that the background cannot follow: a broad shadow
    // running into the right outline, and a rounder one on the right half. Both fade out over
    // 35-60 px, so the ring just outside each candidate is still much of its darkness. Without the
    // edge rule: 12.6 % and 8.9 % of the fruit. (The pigment rule cannot help here: shading leaves
    // b* exactly at its shading value; see the pigment test.)
    for (const shadow of [
      { cx: 200, cy: 90, r: 20, feather: 60, mul: [0.6, 0.6, 0.6] as Rgb },
      { cx: 170, cy: 90, r: 10, feather: 35, mul: [0.6, 0.6, 0.6] as Rgb },
    ]) {
      const { mask, fruitArea } = fruitScene([shadow]);
      expect(count(mask) / fruitArea).toBeLessThan(0.005);
    }
  });

  it('does not call an unripe green patch bruise (greener rule)', () => {
    // Hard-edged (the edge rule does not apply), ~16 L* darker, a* about -20 (26 below the peel),
    // b* below its shading value (the pigment rule does not apply). Without the rule: 3.4 % (all of it).
    const { mask, fruitArea } = fruitScene([{ cx: 90, cy: 100, r: 16, mul: [0.59, 0.84, 0.78] }]);
    expect(count(mask) / fruitArea).toBeLessThan(0.005);
  });

  it('does not call a red blush bruise (blush rule)', () => {
    // ~13 L* darker, a* +33, b* -12. The blush rule acts twice: blush stays in the background and
    // gives no evidence; only with both uses of isBlush removed is it marked (6.4 %, all of it).
    const { mask, fruitArea } = fruitScene([{ cx: 150, cy: 80, r: 22, mul: [1.02, 0.67, 1.0] }]);
    expect(count(mask) / fruitArea).toBeLessThan(0.005);
  });

  it('does not call a darker patch that keeps its yellow bruise (pigment rule)', () => {
    // Dark-yellow pigment: ~15 L* darker with b* about 7 above what pure shading of the peel would
    // leave. Hard-edged, so only the pigment rule can drop it (without it: 3.4 %, all of it).
    // Note: a *proportional* darkening (pure shading, b* exactly at its shading value) is not caught
    // by this rule at all; with a soft edge it is dropped by the edge rule (test above), with a hard
    // edge it is marked like a bruise.
    const { mask, fruitArea } = fruitScene([{ cx: 100, cy: 85, r: 16, mul: [0.8, 0.78, 0.3] }]);
    expect(count(mask) / fruitArea).toBeLessThan(0.005);
  });

  it('finds small dark-brown spots but not lenticel dots or neutral pits (spot detector)', () => {
    // Spots 5-7 px wide (21-37 px, below minLesionFraction x fruit = 47 px): found only by the spot
    // detector (without it, none).
    const spots: Patch[] = [
      { cx: 80, cy: 70, r: 2.5, mul: SPOT },
      { cx: 110, cy: 110, r: 3, mul: SPOT },
      { cx: 150, cy: 75, r: 3.5, mul: SPOT },
      { cx: 130, cy: 60, r: 3, mul: SPOT },
      { cx: 165, cy: 110, r: 2.5, mul: SPOT },
    ];
    // Lenticel-size brown dots, 1 and 2 px: rejected by the 4-pixel minimum (without it all are marked).
    const dots: Patch[] = [];
    for (let k = 0; k < 12; k++) {
      dots.push({ cx: 60 + k * 11, cy: 90 + (k % 3) * 6, r: 0.5, mul: SPOT });
      dots.push({ cx: 65 + k * 10, cy: 130.5 - (k % 2) * 5, r: 0.75, mul: SPOT });
    }
    // Neutral pits, 3 px wide (9 px): darker but keeping their hue (like the shadow of a pit):
    // rejected by the yellow-loss test (without it all are marked).
    const pits: Patch[] = [];
    for (let k = 0; k < 8; k++) pits.push({ cx: 70 + k * 13, cy: 45 + (k % 2) * 100, r: 1.5, mul: [0.6, 0.6, 0.6] });
    const { mask } = fruitScene([...spots, ...dots, ...pits], 5);
    let inSpots = 0;
    for (const s of spots) {
      const { marked, total } = inDisc(mask, s.cx, s.cy, s.r);
      expect(marked / total).toBeGreaterThan(0.8);
      inSpots += inDisc(mask, s.cx, s.cy, s.r + 1).marked;
    }
    // Everything marked belongs to a spot: no dot, no pit.
    expect(inSpots).toBe(count(mask));
  });
});
