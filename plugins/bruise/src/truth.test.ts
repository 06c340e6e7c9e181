import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene, seededRandom } from '@mango/core/testing';
import { evaluateBruise } from './eval.ts';
import {
  countsToString,
  decodeCocoRle,
  decodeLabelStudioRle,
  encodeCocoRle,
  encodeLabelStudioRle,
  fillPolygon,
  maskToCounts,
  stringToCounts,
} from './rle.ts';
import { cocoFile, cocoPhoto, openTruth, regionsOfMasks } from './truth.ts';

describe('mask encodings', () => {
  it('COCO RLE: the string pycocotools 2.0.11 gives for a 7x9 mask, and back', () => {
    const mask = new Uint8Array(7 * 9);
    for (let y = 1; y < 4; y++) for (let x = 2; x < 6; x++) mask[y * 9 + x] = 1;
    for (let x = 0; x < 9; x++) mask[5 * 9 + x] = 1;
    mask[6 * 9 + 8] = 1;
    // pycocotools.mask.encode(np.asfortranarray(m)) of the same mask
    expect(encodeCocoRle(mask, 9, 7)).toEqual({ size: [7, 9], counts: '5160L2ON12ON12ON12ON500001' });
    expect(decodeCocoRle({ size: [7, 9], counts: '5160L2ON12ON12ON12ON500001' }).mask).toEqual(mask);
    expect(decodeCocoRle({ size: [7, 9], counts: maskToCounts(mask, 9, 7) }).mask).toEqual(mask);
  });

  it('COCO RLE and Label Studio brush RLE round-trip random masks exactly', () => {
    const rnd = seededRandom(4);
    for (const [w, h] of [
      [1, 1],
      [13, 7],
      [64, 48],
    ]) {
      const mask = new Uint8Array(w * h);
      // blobs, so that runs are of all lengths
      for (let i = 0; i < mask.length; i++) mask[i] = rnd() < (i % w < w / 2 ? 0.9 : 0.1) ? 1 : 0;
      const counts = maskToCounts(mask, w, h);
      expect(stringToCounts(countsToString(counts))).toEqual(counts);
      expect(decodeCocoRle(encodeCocoRle(mask, w, h)).mask).toEqual(mask);
      expect(decodeLabelStudioRle(encodeLabelStudioRle(mask), w, h)).toEqual(mask);
    }
    expect(() => decodeLabelStudioRle(encodeLabelStudioRle(new Uint8Array(4)), 3, 3)).toThrow(/not 3x3x4/);
    expect(() => decodeCocoRle({ size: [2, 2], counts: [1, 1] })).toThrow(/covers 2 of 4/);
  });

  it('fills polygons at pixel centres as pycocotools does for a rectangle', () => {
    const m = new Uint8Array(7 * 9);
    fillPolygon(m, 9, 7, [
      [1, 1],
      [8, 1],
      [8, 5],
      [1, 5],
    ]);
    // pycocotools.mask.decode(frPyObjects([[1,1, 8,1, 8,5, 1,5]], 7, 9)): rows 1-4, columns 1-7
    for (let y = 0; y < 7; y++)
      for (let x = 0; x < 9; x++) expect(m[y * 9 + x], `${x},${y}`).toBe(y >= 1 && y <= 4 && x >= 1 && x <= 7 ? 1 : 0);
  });
});

/**
 * The same truth of one photo (two mangoes, a bruise on the left one) written by hand in each
 * format a lab may bring, to score the same photo with each.
 */
describe('pixel truth in the annotation tools formats', () => {
  let dir: string;
  let images: string;
  const { image, labels } = bruisedPairScene(3);
  const { width: W, height: H } = image;
  const fruit = new Uint8Array(W * H);
  const bruise = new Uint8Array(W * H);
  for (let i = 0; i < fruit.length; i++) {
    fruit[i] = labels[i] ? 1 : 0;
    const x = i % W;
    const y = (i - x) / W;
    bruise[i] = labels[i] && (x - 100) ** 2 + (y - 110) ** 2 < 26 ** 2 ? 1 : 0;
  }
  /** an ellipse (or circle) of the scene as a polygon of 180 vertices (the scene tests pixel corners, polygons pixel centres) */
  const ellipse = (cx: number, cy: number, rx: number, ry: number) =>
    Array.from({ length: 180 }, (_, k) => [
      cx + 0.5 + rx * Math.cos((k * Math.PI) / 90),
      cy + 0.5 + ry * Math.sin((k * Math.PI) / 90),
    ]);
  const truths: Record<string, string> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-truth-'));
    images = join(dir, 'images');
    mkdirSync(images);
    writeFileSync(join(images, 'pair.png'), await encodeImage(image, 'png'));
    // a photo no truth file mentions: skipped
    writeFileSync(join(images, 'other.png'), await encodeImage(createImage(40, 30, [200, 200, 205, 255]), 'png'));

    // PNG folders
    const png = join(dir, 'png');
    mkdirSync(join(png, 'fruit_masks'), { recursive: true });
    mkdirSync(join(png, 'bruise_masks'));
    const maskPng = (m: Uint8Array) => {
      const img = createImage(W, H, [0, 0, 0, 255]);
      for (let i = 0; i < m.length; i++) if (m[i]) img.data.set([255, 255, 255], i * 4);
      return encodeImage(img, 'png');
    };
    writeFileSync(join(png, 'fruit_masks', 'pair.png'), await maskPng(fruit));
    writeFileSync(join(png, 'bruise_masks', 'pair.png'), await maskPng(bruise));
    truths.png = png;

    // COCO with RLE masks, as `mango bruise --export-coco` writes it
    truths.cocoRle = join(dir, 'coco-rle.json');
    writeFileSync(
      truths.cocoRle,
      JSON.stringify(cocoFile([cocoPhoto(regionsOfMasks('pair.png', W, H, fruit, bruise))])),
    );

    // CVAT "Segmentation mask 1.1": labelmap.txt and a colour-coded class mask (bruise drawn over fruit)
    const cvat = join(dir, 'cvat');
    mkdirSync(join(cvat, 'SegmentationClass'), { recursive: true });
    mkdirSync(join(cvat, 'SegmentationObject'));
    mkdirSync(join(cvat, 'ImageSets', 'Segmentation'), { recursive: true });
    writeFileSync(
      join(cvat, 'labelmap.txt'),
      '# label:color_rgb:parts:actions\nbackground:0,0,0::\nfruit:51,221,255::\nbruise:250,50,83::\n',
    );
    writeFileSync(join(cvat, 'ImageSets', 'Segmentation', 'default.txt'), 'pair\n');
    const classes = createImage(W, H, [0, 0, 0, 255]);
    for (let i = 0; i < fruit.length; i++) {
      if (bruise[i]) classes.data.set([250, 50, 83], i * 4);
      else if (fruit[i]) classes.data.set([51, 221, 255], i * 4);
    }
    writeFileSync(join(cvat, 'SegmentationClass', 'pair.png'), await encodeImage(classes, 'png'));
    truths.cvat = cvat;

    // Label Studio JSON export with brush masks (upload prefix on the file name)
    const lsResult = (type: string, value: Record<string, unknown>) => ({
      original_width: W,
      original_height: H,
      image_rotation: 0,
      value,
      from_name: 'tag',
      to_name: 'image',
      type,
      origin: 'manual',
    });
    truths.lsBrush = join(dir, 'label-studio-brush.json');
    writeFileSync(
      truths.lsBrush,
      JSON.stringify([
        {
          id: 7,
          data: { image: '/data/upload/3/0f3c9a1b-pair.png' },
          annotations: [
            {
              id: 1,
              was_cancelled: false,
              result: [
                lsResult('brushlabels', { format: 'rle', rle: encodeLabelStudioRle(fruit), brushlabels: ['Fruit'] }),
                lsResult('brushlabels', { format: 'rle', rle: encodeLabelStudioRle(bruise), brushlabels: ['Bruise'] }),
              ],
            },
          ],
        },
      ]),
    );

    // Polygons: COCO (pixels, flat) and Label Studio (percent of the size)
    const fruitPolys = [ellipse(120, 120, 90, 70), ellipse(350, 120, 85, 68)];
    const bruisePoly = ellipse(100, 110, 26, 26);
    truths.cocoPoly = join(dir, 'coco-polygons.json');
    writeFileSync(
      truths.cocoPoly,
      JSON.stringify({
        images: [{ id: 5, file_name: 'photos/pair.png', width: W, height: H }],
        categories: [
          { id: 1, name: 'mango' },
          { id: 2, name: 'bruise' },
          { id: 3, name: 'stem' },
        ],
        annotations: [
          ...fruitPolys.map((p, k) => ({
            id: k + 1,
            image_id: 5,
            category_id: 1,
            iscrowd: 0,
            segmentation: [p.flat()],
          })),
          { id: 9, image_id: 5, category_id: 2, iscrowd: 0, segmentation: [bruisePoly.flat()] },
        ],
      }),
    );
    const percent = (p: number[][]) => p.map(([x, y]) => [(100 * x) / W, (100 * y) / H]);
    truths.lsPoly = join(dir, 'label-studio-polygons.json');
    writeFileSync(
      truths.lsPoly,
      JSON.stringify([
        {
          id: 8,
          data: { image: 'pair.png' },
          annotations: [
            {
              result: [
                ...fruitPolys.map((p) =>
                  lsResult('polygonlabels', { points: percent(p), closed: true, polygonlabels: ['fruit'] }),
                ),
                lsResult('polygonlabels', { points: percent(bruisePoly), closed: true, polygonlabels: ['bruise'] }),
              ],
            },
          ],
        },
      ]),
    );
  });

  it('recognises each format from its content and reads the same masks', async () => {
    const formats = Object.fromEntries(Object.entries(truths).map(([k, p]) => [k, openTruth(p).format]));
    expect(formats).toEqual({
      png: 'png-folders',
      cocoRle: 'coco',
      cvat: 'cvat-mask',
      lsBrush: 'label-studio',
      cocoPoly: 'coco',
      lsPoly: 'label-studio',
    });
    for (const key of ['png', 'cocoRle', 'cvat', 'lsBrush']) {
      const m = await openTruth(truths[key]).masks('pair.png');
      expect(m?.fruit, key).toEqual(fruit);
      expect(m?.bruise, key).toEqual(bruise);
      expect(await openTruth(truths[key]).masks('other.png'), key).toBeNull();
    }
    // polygons of 180 vertices: within a few outline pixels of the drawn ellipses
    for (const key of ['cocoPoly', 'lsPoly']) {
      const m = (await openTruth(truths[key]).masks('pair.png'))!;
      let diff = 0;
      for (let i = 0; i < fruit.length; i++) diff += m.fruit[i] !== fruit[i] ? 1 : 0;
      expect(diff / fruit.reduce((a, b) => a + b, 0), key).toBeLessThan(0.01);
    }
  });

  it('scores the photo the same from every exact format (CVAT = COCO = Label Studio = PNG)', async () => {
    const scores = [];
    for (const key of ['png', 'cocoRle', 'cvat', 'lsBrush', 'cocoPoly', 'lsPoly']) {
      const ev = await evaluateBruise({ images, truth: truths[key], method: 'classical' });
      expect(ev.pixel?.images, key).toBe(1);
      scores.push({ key, format: ev.pixel!.format, ...ev.pixel!.per_image[0] });
    }
    const exact = scores.slice(0, 4).map(({ key: _k, format: _f, ...s }) => s);
    for (const s of exact) expect(s).toEqual(exact[0]);
    expect(exact[0].fruit_iou).toBeGreaterThan(0.97);
    for (const s of scores.slice(4)) {
      expect(Math.abs(s.fruit_iou - exact[0].fruit_iou), s.key).toBeLessThan(0.01);
      expect(Math.abs(s.truth_percent - exact[0].truth_percent), s.key).toBeLessThan(0.3);
    }
  });

  it('says clearly when the truth is missing, unreadable or matches no photo', async () => {
    await expect(evaluateBruise({ images, truth: join(dir, 'missing.json') })).rejects.toThrow(
      `truth not found: ${join(dir, 'missing.json')}`,
    );
    const none = join(dir, 'none.json');
    writeFileSync(none, JSON.stringify({ images: [], annotations: [], categories: [{ id: 1, name: 'fruit' }] }));
    await expect(evaluateBruise({ images, truth: none, method: 'classical' })).rejects.toThrow(
      /no photo in .* has truth in .*none\.json \(coco\): truth is matched by file name/,
    );
    const odd = join(dir, 'odd.json');
    writeFileSync(odd, JSON.stringify({ hello: 1 }));
    expect(() => openTruth(odd)).toThrow(/neither a COCO file .* nor a Label Studio export/);
    expect(() => openTruth(images)).toThrow(/not a truth folder/);
    const noFruit = join(dir, 'no-fruit.json');
    writeFileSync(noFruit, JSON.stringify({ images: [], annotations: [], categories: [{ id: 1, name: 'leaf' }] }));
    expect(() => openTruth(noFruit)).toThrow(/no COCO category named fruit/);
  });
});
