/**
 * The overlay's colour-card outline: a thin line on the card's quadrilateral, nothing inside or outside
 * it; and corrected masks drawn in the same colours (`overlayOfMasks`) with the same marks (`correctedOverlay`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext, runPlugin, type RasterImage } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { poseHomography, renderColourCard, sceneWithDisc } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import bruise from './index.ts';
import { renderOverlay } from './overlay.ts';
import { correctedOverlay, overlayOfMasks } from './corrected.ts';

const grey = (w: number, h: number): RasterImage => {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let i = 0; i < w * h; i++) data.set([128, 128, 128, 255], i * 4);
  return { width: w, height: h, data };
};
const px = (img: RasterImage, x: number, y: number) => [
  ...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 3),
];

describe('overlay: the colour card outline', () => {
  const image = grey(200, 100);
  const none = new Uint8Array(200 * 100);
  // an axis-aligned card from pixel (40, 20) to pixel (120, 70), given in a raster twice as wide
  const card = {
    corners: [
      { x: 81, y: 41 },
      { x: 241, y: 41 },
      { x: 241, y: 141 },
      { x: 81, y: 141 },
    ],
    rasterWidth: 400,
  };

  it('paints the four edges in the card colour, scaled to the overlay, and leaves the rest as it was', () => {
    const plain = renderOverlay(image, none, none, 200);
    const drawn = renderOverlay(image, none, none, 200, undefined, card);
    const green = [60, 255, 60];
    for (const [x, y] of [
      [40, 45], // left edge
      [120, 45], // right edge
      [80, 20], // top edge
      [80, 70], // bottom edge
      [40, 20], // a corner
    ]) {
      expect(px(drawn, x, y), `${x},${y}`).toEqual(green);
      expect(px(plain, x, y)).toEqual([128, 128, 128]);
    }
    // inside the card, outside it and next to an edge: unchanged
    for (const [x, y] of [
      [80, 45],
      [10, 10],
      [38, 45],
      [42, 45],
      [80, 22],
    ])
      expect(px(drawn, x, y), `${x},${y}`).toEqual([128, 128, 128]);
    let painted = 0;
    for (let i = 0; i < 200 * 100; i++) if (drawn.data[i * 4 + 1] === 255) painted++;
    // a one-pixel line around 80 x 50: exactly its perimeter
    expect(painted).toBe(2 * (80 + 50));
  });

  it('without a card the overlay is unchanged', () => {
    expect(renderOverlay(image, none, none, 200).data).toEqual(renderOverlay(image, none, none, 200, undefined).data);
  });
});

/** A mask of w x h set on the rectangle [x0, x1) x [y0, y1). */
function rect(w: number, h: number, x0: number, y0: number, x1: number, y1: number) {
  const m = new Uint8Array(w * h);
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) m[y * w + x] = 1;
  return m;
}

describe('overlayOfMasks: corrected masks drawn as the model overlay (issue 28: /viewphoto/result)', () => {
  const W = 120;
  const H = 80;
  const fruit = rect(W, H, 10, 10, 70, 60);
  const bruise = rect(W, H, 30, 20, 50, 40);

  it('outlines the fruit in cyan and tints the lesion, with its outline, in the plugin colours; the rest is the photo', () => {
    const out = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 1600);
    expect([out.width, out.height]).toEqual([W, H]);
    expect(px(out, 10, 30)).toEqual([0, 210, 255]); // fruit edge
    expect(px(out, 30, 30)).toEqual([255, 0, 90]); // lesion edge
    // inside the lesion: 45 % photo, 55 % tint (128 * 0.45 + [255, 0, 90] * 0.55, rounded half to even)
    expect(px(out, 40, 30)).toEqual([198, 58, 107]);
    expect(px(out, 20, 30)).toEqual([128, 128, 128]); // healthy peel
    expect(px(out, 100, 70)).toEqual([128, 128, 128]); // background
  });

  it('counts a lesion painted off the fruit as fruit (outlined), as the figures do', () => {
    const off = rect(W, H, 90, 20, 110, 40);
    const out = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise: off }, 1600);
    expect(px(out, 90, 30)).toEqual([0, 210, 255]);
    expect(px(out, 40, 30)).toEqual([128, 128, 128]); // the old lesion is gone
  });

  it('upsamples masks of a working copy to the photo, and fits the overlay to maxSide', () => {
    const half = {
      width: W / 2,
      height: H / 2,
      fruit: rect(W / 2, H / 2, 5, 5, 35, 30),
      bruise: rect(W / 2, H / 2, 15, 10, 25, 20),
    };
    const full = overlayOfMasks(grey(W, H), half, 1600);
    const same = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 1600);
    expect(full.data).toEqual(same.data);
    const small = overlayOfMasks(grey(W, H), { width: W, height: H, fruit, bruise }, 60);
    expect([small.width, small.height]).toEqual([60, 40]);
    expect(px(small, 20, 15)).not.toEqual([128, 128, 128]); // the lesion, at half size
  });

  it('refuses masks that do not hold width x height pixels', () => {
    expect(() => overlayOfMasks(grey(W, H), { width: W, height: H, fruit: new Uint8Array(3), bruise }, 1600)).toThrow(
      /need 9600 pixels/,
    );
  });
});

/**
 * A corrected overlay marks what the model's overlay of the same photo marks (issue 28): the
 * reference ring and the colour-card outline drawn from the result's `reference` and
 * `colour_card.outline`, on the same pixels when drawn at the model overlay's size.
 */
describe('correctedOverlay: the ring and the card outline of the model overlay', () => {
  const shared = sharedDir();
  const photo = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');
  /** pixels of `img` exactly `colour` */
  const painted = (img: RasterImage, colour: number[]) => {
    const out = new Set<number>();
    for (let i = 0; i < img.width * img.height; i++)
      if (img.data[i * 4] === colour[0] && img.data[i * 4 + 1] === colour[1] && img.data[i * 4 + 2] === colour[2])
        out.add(i);
    return out;
  };
  async function compare(image: RasterImage, options: object, colour: number[]) {
    const r = await runPlugin(
      bruise,
      image,
      { method: 'classical', ...options },
      createContext(nodeImages, { want: ['overlay', 'fruit-mask', 'bruise-mask'] }),
    );
    const model = r.images.overlay;
    const fruit = r.images['fruit-mask'];
    const lesion = r.images['bruise-mask'];
    if (model?.kind !== 'picture' || fruit?.kind !== 'mask' || lesion?.kind !== 'mask') throw new Error('no images');
    const masks = {
      width: fruit.mask.width,
      height: fruit.mask.height,
      fruit: fruit.mask.data,
      bruise: lesion.mask.data,
    };
    const side = Math.max(model.image.width, model.image.height);
    const corrected = correctedOverlay(r, masks, image, { overlayMaxSide: 1600 }, side);
    expect([corrected.width, corrected.height]).toEqual([model.image.width, model.image.height]);
    const want = painted(model.image, colour);
    const got = painted(corrected, colour);
    const bare = painted(overlayOfMasks(image, masks, side), colour);
    const same = [...want].filter((i) => got.has(i)).length;
    console.log(
      `${colour.join(',')}: model ${want.size} px, corrected ${got.size} px, ${same} shared; without marks ${bare.size}`,
    );
    expect(want.size).toBeGreaterThan(100);
    expect(same / want.size).toBeGreaterThan(0.98);
    expect(got.size / want.size).toBeLessThan(1.02);
    // drawn without the result's marks there would be (next to) none: the marks come from the result
    expect(bare.size).toBeLessThan(want.size * 0.05);
    // by default as large as the run's overlayMaxSide (never capped below the model overlay's)
    const full = correctedOverlay(r, masks, image, { overlayMaxSide: 1600 });
    expect(Math.max(full.width, full.height)).toBe(Math.min(1600, Math.max(image.width, image.height)));
    return r;
  }

  it('rings the reference disc in yellow as the model overlay does', async () => {
    const { image } = sceneWithDisc(40, 8);
    const r = await compare(image, { referenceMm: 25 }, [255, 220, 0]);
    expect(r.reference).toBeTruthy();
  });

  it.skipIf(!photo || !existsSync(photo))(
    `outlines the colour card in green as the model overlay does, on a real photo${shared ? '' : ` (${SHARED_MISSING})`}`,
    async () => {
      const plain = await loadImageFile(photo!);
      const withCard = renderColourCard(
        plain,
        poseHomography({ x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 }),
        {
          blur: 1,
          noise: 2,
        },
      );
      const r = await compare(withCard, {}, [60, 255, 60]);
      expect(r.colour_card?.outline).toHaveLength(4);
    },
  );
});
