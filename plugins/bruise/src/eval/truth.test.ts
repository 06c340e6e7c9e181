import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { encodeLabelStudioRle } from '../rle.ts';
import { cocoFile, cocoPhoto, regionsOfMasks } from './coco.ts';
import { evaluateBruise } from './index.ts';
import { openTruth } from './truth.ts';

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
