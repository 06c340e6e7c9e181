import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeImage } from '@mango/core/node';
import { sceneWithDisc } from '@mango/core/testing';
import { mango } from './testing.ts';

/** CSV text -> records keyed by the header (the CLI's tables have no quoted commas here). */
const records = (text: string) => {
  const [header, ...rows] = text.trim().split('\n');
  const keys = header.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], v])));
};

describe('mango bruise: reference scale and grades', () => {
  let dir: string;
  let photos: string;
  let areas: number[];
  /** mango bruise on the photo, the scale from its 25 mm coin, Codex grades */
  const codexWithCoin = () => [
    'bruise',
    photos,
    '--method',
    'classical',
    '--reference-mm',
    '25',
    '--grades',
    'codex-mango',
  ];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-units-'));
    photos = join(dir, 'lot');
    mkdirSync(photos);
    const scene = sceneWithDisc(32, 21);
    areas = scene.areas;
    // a 3.5 cm² bruise on the left fruit (3584 px at 32 px/cm)
    const { image } = scene;
    const r = Math.sqrt(3584 / Math.PI);
    for (let y = 0; y < image.height; y++)
      for (let x = 0; x < image.width; x++) {
        if ((x - 330) ** 2 + (y - 360) ** 2 <= r * r) image.data.set([95, 60, 25], (y * image.width + x) * 4);
      }
    writeFileSync(join(photos, 'two-mangoes.jpg'), await encodeImage(image, 'jpeg', { quality: 92 }));
  });

  it('--reference-mm 25: each fruit in cm² (within 2 %), a Codex grade, the lot summary printed and written', async () => {
    const fruits = join(dir, 'fruits.csv');
    const lot = join(dir, 'lot.json');
    const out = join(dir, 'results.json');
    const r = await mango([...codexWithCoin(), '--fruits', fruits, '--lot', lot, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const rows = records(readFileSync(fruits, 'utf8'));
    expect(rows).toHaveLength(2);
    for (const [i, row] of rows.entries()) {
      expect(Math.abs(Number(row.fruit_area_cm2) / (areas[i + 1] / 32 ** 2) - 1)).toBeLessThan(0.02);
      expect(row.size_source).toBe('area-estimate');
    }
    // 3.5 cm²: Class II in size groups A and B (Class I up to 2 and 3 cm²), Class I in C (4); both fruit estimate as C
    expect(Number(rows[0].bruise_area_cm2)).toBeGreaterThan(3.2);
    expect(Number(rows[0].bruise_area_cm2)).toBeLessThan(3.8);
    expect(rows.map((f) => [f.grade, f.size_group])).toEqual([
      ['Class I', 'C'],
      ['Extra', 'C'],
    ]);
    expect(r.stdout).toContain('lot (codex-mango): 2 of 2 fruit graded');
    expect(r.stdout).toMatch(/accepted: 2 \(100\.0 %\)/);
    expect(r.stdout).toMatch(/size group estimated from the fruit's area for 2 fruit/);
    const summary = JSON.parse(readFileSync(lot, 'utf8'));
    expect(summary).toMatchObject({ rules: 'codex-mango', fruit_count: 2, accepted: 2, accepted_share: 1 });
    const results = JSON.parse(readFileSync(out, 'utf8'));
    expect(results.photos[0].result).toMatchObject({ scale_source: 'reference', grades: 'codex-mango' });
    expect(results.photos[0].result.reference.diameter_px).toBeCloseTo(80, -0.5);
    expect(results.provenance.options).toMatchObject({ referenceMm: 25, grades: 'codex-mango' });
  });

  it('--weights sets the size group from weighed fruit (a lighter fruit gets the tighter limit)', async () => {
    const weights = join(dir, 'weights.csv');
    writeFileSync(weights, 'image,fruit,weight_g\ntwo-mangoes.jpg,1,300\ntwo-mangoes.jpg,2,420\n');
    const fruits = join(dir, 'fruits-weighed.csv');
    const r = await mango([...codexWithCoin(), '--weights', weights, '--fruits', fruits, '--out', join(dir, 'r.csv')]);
    expect(r.code, r.stderr).toBe(0);
    const rows = records(readFileSync(fruits, 'utf8'));
    expect(rows.map((f) => [f.grade, f.size_group, f.weight_g, f.size_source])).toEqual([
      ['Class II', 'A', '300', 'weight'],
      ['Extra', 'B', '420', 'weight'],
    ]);
  });

  it('usage errors exit 2: codex without a scale, an unknown preset, a bad rules file, bad weights', async () => {
    const noScale = await mango(['bruise', photos, '--grades', 'codex-mango']);
    expect(noScale.code).toBe(2);
    expect(noScale.stderr).toMatch(/needs a scale: give --reference-mm/);
    const unknown = await mango(['bruise', photos, '--grades', 'usda']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/neither a preset \(codex-mango, percent\) nor a file/);
    const bad = join(dir, 'bad-rules.json');
    writeFileSync(
      bad,
      JSON.stringify({ schema: 'mango-bruise-tracker/grades/1', id: 'x', name: 'x', measure: 'colour' }),
    );
    const badRules = await mango(['bruise', photos, '--grades', bad]);
    expect(badRules.code).toBe(2);
    expect(badRules.stderr).toMatch(/invalid grade rules in .*bad-rules\.json/);
    const badWeights = join(dir, 'bad-weights.csv');
    writeFileSync(badWeights, 'image,fruit,weight_g\ntwo-mangoes.jpg,first,300\n');
    const w = await mango(['bruise', photos, '--grades', 'percent', '--weights', badWeights]);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/line 2 needs image, fruit/);
  });

  it('a lab rules file grades on its own limits (percent measure, no scale needed)', async () => {
    const rules = join(dir, 'lab.json');
    writeFileSync(
      rules,
      JSON.stringify({
        schema: 'mango-bruise-tracker/grades/1',
        id: 'lab-export',
        name: 'Export line',
        measure: 'bruise_percent',
        grades: [
          { id: 'Export', max: 0.5 },
          { id: 'Local', max: 5 },
        ],
        reject: 'Juice',
      }),
    );
    const fruits = join(dir, 'fruits-lab.csv');
    const r = await mango(['bruise', photos, '--method', 'classical', '--grades', rules, '--fruits', fruits]);
    expect(r.code, r.stderr).toBe(0);
    // without a reference option the disc is one more object (no bruise): Export
    expect(records(readFileSync(fruits, 'utf8')).map((f) => f.grade)).toEqual(['Local', 'Export', 'Export']);
    expect(r.stderr).toContain('lot (lab-export): 3 of 3 fruit graded');
  });

  it('--export-coco then mango eval bruise --truth on that file: IoU 1.0 (the round trip)', async () => {
    const coco = join(dir, 'predicted.coco.json');
    const r = await mango(['bruise', photos, '--method', 'classical', '--reference-mm', '25', '--export-coco', coco]);
    expect(r.code, r.stderr).toBe(0);
    const file = JSON.parse(readFileSync(coco, 'utf8'));
    expect(file.categories.map((c: { name: string }) => c.name)).toEqual(['fruit', 'bruise']);
    expect(file.images).toEqual([{ id: 1, file_name: 'two-mangoes.jpg', width: 1280, height: 720 }]);
    // two fruit and the bruise of the left one, as RLE strings; the coin is not a fruit
    expect(file.annotations.map((a: { category_id: number }) => a.category_id)).toEqual([1, 2, 1]);
    expect(typeof file.annotations[0].segmentation.counts).toBe('string');
    const out = join(dir, 'eval.json');
    const ev = await mango([
      'eval',
      'bruise',
      '--images',
      photos,
      '--truth',
      coco,
      '--method',
      'classical',
      '--reference-mm',
      '25',
      '--out',
      out,
    ]);
    expect(ev.code, ev.stderr).toBe(0);
    expect(ev.stdout).toContain('pixel truth (coco): 1 images');
    const [image] = JSON.parse(readFileSync(out, 'utf8')).pixel.per_image;
    expect(image).toMatchObject({ fruit_iou: 1, bruise_iou: 1 });
    expect(image.truth_percent).toBe(image.predicted_percent);
  });

  it('mango eval bruise: a missing truth path or one matching no photo is an error, not a table of Infinity', async () => {
    const missing = await mango(['eval', 'bruise', '--images', photos, '--truth', join(dir, 'missing.json')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(`truth not found: ${join(dir, 'missing.json')}`);
    expect(missing.stdout).not.toContain('Infinity');
    const other = join(dir, 'other.coco.json');
    writeFileSync(
      other,
      JSON.stringify({
        images: [{ id: 1, file_name: 'elsewhere.jpg', width: 10, height: 10 }],
        annotations: [],
        categories: [{ id: 1, name: 'fruit' }],
      }),
    );
    const none = await mango(['eval', 'bruise', '--images', photos, '--truth', other, '--method', 'classical']);
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/no photo in .* has truth in .*other\.coco\.json \(coco\)/);
  });
});
