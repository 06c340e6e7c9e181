import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createContext, createImage, runPlugin, type RasterImage } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { imageFromText } from '@mango/core/testing';
import { loadImageFile, repoRoot } from '@mango/core/testing/node';
import kmeans, {
  clusterColours,
  initialCentres,
  kmeansClassesFile,
  kmeansResultFile,
  percentages,
  recolor,
  regionBounds,
} from './index.ts';

const FIXTURES = join(repoRoot, 'plugins/kmeans/fixtures');
const ctx = () => createContext(nodeImages);

function fixture(name: string) {
  const classes = kmeansClassesFile.parse(JSON.parse(readFileSync(join(FIXTURES, `${name}.classes.json`), 'utf8')));
  const expected = JSON.parse(readFileSync(join(FIXTURES, `${name}.expected.json`), 'utf8')) as {
    result: unknown;
    counts: number[];
  };
  return { classes, result: kmeansResultFile.parse(expected.result), counts: expected.counts };
}

describe('kmeans against the numpy reference (fixtures/kmeans_ref.py)', () => {
  for (const name of ['blobs', 'ties', 'empty-class', 'gradient']) {
    it(`gives the reference percentages on ${name}`, async () => {
      const { classes, result, counts } = fixture(name);
      const image = await loadImageFile(join(FIXTURES, `${name}.png`));
      const out = await runPlugin(kmeans, image, classes, ctx());
      expect(out.classes).toEqual(result);
      // Both strategies agree with the reference pixel for pixel.
      const initial = initialCentres(image, classes.classes);
      const byPixel = clusterColours(image, initial, { strategy: 'pixels' });
      const byHistogram = clusterColours(image, initial, { strategy: 'histogram' });
      expect(Array.from(byPixel.counts)).toEqual(counts);
      expect(Array.from(byHistogram.counts)).toEqual(counts);
      expect(byHistogram.labels).toEqual(byPixel.labels);
      expect(out.labels).toEqual(byPixel.labels);
    });
  }
});

describe('kmeans definition', () => {
  const palette = {
    r: [250, 0, 0, 255],
    R: [200, 10, 10, 255],
    g: [0, 240, 0, 255],
    b: [0, 0, 255, 255],
  } as const;
  const pic = imageFromText(['rrRg', 'rRgg', 'bbgg'], palette as never);

  it('seeds each centre with the mean colour of its rectangles, clipped and rounded down', () => {
    expect(regionBounds({ x: -2.5, y: 1.9, width: 4, height: 10 }, 4, 3)).toEqual({ x0: 0, y0: 1, x1: 1, y1: 3 });
    expect(regionBounds({ x: 3.5, y: 0, width: 0.4, height: 1 }, 4, 3)).toBeNull(); // floor(3.9) = 3: empty
    expect(regionBounds({ x: 10, y: 0, width: 5, height: 1 }, 4, 3)).toBeNull();
    const centres = initialCentres(pic, [
      { name: 'red', color: [255, 0, 0], regions: [{ x: 0, y: 0, width: 3, height: 1 }] },
      { name: 'green', color: [0, 255, 0], regions: [{ x: 3.7, y: 0.2, width: 1, height: 1 }] },
    ]);
    expect(Array.from(centres)).toEqual([(250 + 250 + 200) / 3, 10 / 3, 10 / 3, 0, 240, 0]);
  });

  it('counts a pixel under two rectangles of one class twice', () => {
    const centres = initialCentres(pic, [
      {
        name: 'red',
        color: [255, 0, 0],
        regions: [
          { x: 0, y: 0, width: 3, height: 1 },
          { x: 2, y: 0, width: 1, height: 1 },
        ],
      },
    ]);
    expect(centres[0]).toBe((250 + 250 + 200 + 200) / 4);
  });

  it('refuses a class without samples with a clear message', async () => {
    const options = {
      classes: [
        { name: 'red', color: [255, 0, 0], regions: [{ x: 0, y: 0, width: 1, height: 1 }] },
        { name: 'bruise', color: [0, 0, 255], regions: [{ x: 40, y: 40, width: 5, height: 5 }] },
      ],
    };
    await expect(runPlugin(kmeans, pic, options, ctx())).rejects.toThrow('class "bruise" has no samples');
    await expect(
      runPlugin(kmeans, pic, { classes: [{ name: 'x', color: [1, 2, 3], regions: [] }] }, ctx()),
    ).rejects.toThrow('class "x" has no samples');
    await expect(runPlugin(kmeans, pic, { classes: [] }, ctx())).rejects.toThrow('add at least one class');
    await expect(
      runPlugin(kmeans, pic, { classes: [{ name: 'x', color: [256, 0, 0], regions: [] }] }, ctx()),
    ).rejects.toThrow('invalid options for kmeans');
  });

  it('splits a picture into its classes, percentages with 2 decimals and labels per pixel', async () => {
    const out = await runPlugin(
      kmeans,
      pic,
      {
        classes: [
          { name: 'red', color: [255, 0, 0], regions: [{ x: 0, y: 0, width: 1, height: 1 }] },
          { name: 'green', color: [0, 255, 0], regions: [{ x: 3, y: 2, width: 1, height: 1 }] },
          { name: 'blue', color: [0, 0, 255], regions: [{ x: 0, y: 2, width: 1, height: 1 }] },
        ],
      },
      ctx(),
    );
    expect(out.classes.map((c) => c.percent)).toEqual(['41.67', '41.67', '16.67']);
    expect(Array.from(out.labels!)).toEqual([0, 0, 0, 1, 0, 0, 1, 1, 2, 2, 1, 1]);
    const painted = recolor(pic, out.labels!, [
      [255, 0, 0],
      [0, 255, 0],
      [0, 0, 255],
    ]);
    expect(Array.from(painted.data.subarray(8, 16))).toEqual([255, 0, 0, 255, 0, 255, 0, 255]);
    const noLabels = await runPlugin(
      kmeans,
      pic,
      { classes: [{ name: 'all', color: [1, 2, 3], regions: [{ x: 0, y: 0, width: 4, height: 3 }] }], labels: false },
      ctx(),
    );
    expect(noLabels).toEqual({ classes: [{ name: 'all', color: [1, 2, 3], percent: '100.00' }] });
  });

  it('reports progress per round and stops when cancelled', async () => {
    const options = { classes: [{ name: 'a', color: [1, 2, 3], regions: [{ x: 0, y: 0, width: 2, height: 2 }] }] };
    const fractions: number[] = [];
    await runPlugin(kmeans, pic, options, createContext(nodeImages, { progress: (f) => fractions.push(f) }));
    expect(fractions).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    const abort = new AbortController();
    const ctx = createContext(nodeImages, {
      signal: abort.signal,
      progress: (f) => f >= 0.3 && abort.abort(),
    });
    await expect(runPlugin(kmeans, pic, options, ctx)).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('formats percentages like the table: 2 decimals, half up', () => {
    expect(percentages(new Float64Array([1, 2, 0]), 3)).toEqual(['33.33', '66.67', '0.00']);
    expect(percentages(new Float64Array([1]), 8)).toEqual(['12.50']);
  });

  it('keeps the classes file and result file shapes of the CLI and the page', () => {
    const file = {
      classes: [{ name: 'healthy', color: [255, 0, 0], regions: [{ x: 10, y: 20, width: 30, height: 40 }] }],
    };
    expect(kmeansClassesFile.parse(file)).toEqual(file);
    expect(kmeansClassesFile.safeParse({ classes: [{ name: ' ', color: [0, 0, 0], regions: [] }] }).success).toBe(
      false,
    );
    expect(kmeansResultFile.parse([{ name: 'healthy', color: [255, 0, 0], percent: '61.25' }])).toHaveLength(1);
    expect(kmeansResultFile.safeParse([{ name: 'h', color: [255, 0, 0], percent: '61.3' }]).success).toBe(false);
  });

  it('uses the histogram path on large images with the same result as the per-pixel path', () => {
    const img: RasterImage = createImage(1100, 1000);
    for (let i = 0; i < img.data.length; i += 4) {
      const p = i / 4;
      img.data[i] = (p * 7) & 255;
      img.data[i + 1] = (p >> 5) & 255;
      img.data[i + 2] = (p * 13) % 251;
      img.data[i + 3] = 255;
    }
    const classes = [
      { name: 'a', color: [0, 0, 0] as [number, number, number], regions: [{ x: 0, y: 0, width: 50, height: 50 }] },
      { name: 'b', color: [0, 0, 0] as [number, number, number], regions: [{ x: 500, y: 900, width: 30, height: 60 }] },
      { name: 'c', color: [0, 0, 0] as [number, number, number], regions: [{ x: 1000, y: 10, width: 90, height: 9 }] },
    ];
    const initial = initialCentres(img, classes);
    const a = clusterColours(img, initial, { strategy: 'auto' });
    const b = clusterColours(img, initial, { strategy: 'pixels' });
    expect(Array.from(a.counts)).toEqual(Array.from(b.counts));
    expect(Array.from(a.centres)).toEqual(Array.from(b.centres));
    // Buffer.equals: toEqual on a megabyte typed array takes seconds.
    expect(Buffer.from(a.labels).equals(Buffer.from(b.labels))).toBe(true);
  });
});
