import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createImage } from '@mango/core';
import { decodeImage, encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { PINNED } from '@mango/models/testing';
import { mango } from './testing.ts';

describe('mango CLI', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-cli-'));
    mkdirSync(join(dir, 'in/nested'), { recursive: true });
    writeFileSync(join(dir, 'in/a.png'), await encodeImage(createImage(400, 300, [250, 180, 40, 255]), 'png'));
    writeFileSync(join(dir, 'in/nested/b.jpg'), await encodeImage(createImage(200, 100, [90, 160, 40, 255]), 'jpeg'));
    writeFileSync(join(dir, 'in/broken.jpg'), Buffer.from('%PDF-1.4 renamed'));
    writeFileSync(join(dir, 'in/notes.txt'), 'ignored');
  });

  it('lists the plugins with options from their schemas', async () => {
    const r = await mango(['plugins', '--json']);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as { id: string; options: Record<string, { type: string }> }[];
    const resize = list.find((p) => p.id === 'resize')!;
    expect(resize.options.width.type).toBe('integer');
    expect(resize.options.keepAspect.type).toBe('boolean');
  });

  it('resizes a directory recursively, keeps going past a bad file and exits non-zero naming it', async () => {
    const out = join(dir, 'out');
    const r = await mango(['resize', join(dir, 'in'), '--width', '100', '--keep-aspect', '--out-dir', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('2 of 3 images');
    expect(r.stderr).toMatch(/broken\.jpg: not a supported image/);
    const a = await decodeImage(await import('node:fs').then((fs) => fs.readFileSync(join(out, 'a.jpg'))));
    expect([a.width, a.height, a.format]).toEqual([100, 75, 'jpeg']);
    expect(readdirSync(join(out, 'nested'))).toEqual(['b.jpg']);
  });

  it('computes features for a directory as CSV (feature_analysis_results layout) and JSON', async () => {
    const csvPath = join(dir, 'features.csv');
    const r = await mango(['features', join(dir, 'in'), '--features', 'area,rgb', '--out', csvPath]);
    expect(r.code).toBe(1); // broken.jpg
    const lines = (await import('node:fs')).readFileSync(csvPath, 'utf8').trim().split('\n');
    // The one feature table of every front end: a photo that failed is a row with its error.
    expect(lines[0]).toBe(
      'Image,mean_R,mean_G,mean_B,std_R,std_G,std_B,area,convex_area,solidity,extent,equivalent_diameter,area_fraction,error',
    );
    expect(lines).toHaveLength(4);
    expect(lines.find((l) => l.startsWith('broken.jpg,'))).toMatch(/^broken\.jpg,(,){12}.*not a supported image/);
    expect(lines[1].startsWith('a.png,250,180,40,0,0,0,120000,')).toBe(true);
    const json = await mango(['features', join(dir, 'in/a.png'), '--features', 'rgb']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([
      {
        image_name: 'a.png',
        downscaled: false,
        features: { rgb: { mean_R: 250, mean_G: 180, mean_B: 40, std_R: 0, std_G: 0, std_B: 0 } },
      },
    ]);
    const bad = await mango(['features', join(dir, 'in/a.png'), '--features', 'rgb,colour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown: colour. Allowed choices are rgb, hsv, lab, grayscale, glcm');
  });

  it('neutralises formulas in the CSV it writes (a photo named =1+1.png); negative values stay numbers', async () => {
    mkdirSync(join(dir, 'formula'), { recursive: true });
    const photo = join(dir, 'formula', '=1+1.png');
    writeFileSync(photo, await encodeImage(bruisedPairScene().image, 'png'));
    const csvPath = join(dir, 'formula.csv');
    expect((await mango(['features', photo, '--features', 'grayscale', '--out', csvPath])).code).toBe(0);
    const [header, row] = readFileSync(csvPath, 'utf8').trim().split('\n');
    const cells = row.split(',');
    expect(cells[0]).toBe("'=1+1.png");
    const json = await mango(['features', photo, '--features', 'grayscale']);
    const skewness = (JSON.parse(json.stdout) as { features: { grayscale: { gray_skewness: number } } }[])[0].features
      .grayscale.gray_skewness;
    expect(skewness).toBeLessThan(0);
    expect(cells[header.split(',').indexOf('gray_skewness')]).toBe(String(skewness));

    const resultsPath = join(dir, 'formula-results.csv');
    const fruitsPath = join(dir, 'formula-fruits.csv');
    const bruise = await mango([
      'bruise',
      photo,
      '--method',
      'classical',
      '--out',
      resultsPath,
      '--fruits',
      fruitsPath,
    ]);
    expect(bruise.code).toBe(0);
    expect(readFileSync(resultsPath, 'utf8').split('\n')[1].startsWith("'=1+1.png,")).toBe(true);
    expect(readFileSync(fruitsPath, 'utf8').split('\n')[1].startsWith("'=1+1.png,1,")).toBe(true);
  });

  it('crops with rotation and runs kmeans with a classes file, with identical results to the plugin', async () => {
    const out = join(dir, 'crop.png');
    const r = await mango([
      'crop',
      join(dir, 'in/a.png'),
      '--x',
      '10',
      '--y',
      '20',
      '--width',
      '40',
      '--height',
      '30',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    const fs = await import('node:fs');
    const cropped = await decodeImage(fs.readFileSync(out));
    expect([cropped.width, cropped.height]).toEqual([40, 30]);
    expect(Array.from(cropped.data.slice(0, 4))).toEqual([250, 180, 40, 255]);
    // Two colour halves: the left 300 columns orange, the right 100 green.
    const img = createImage(400, 300, [250, 180, 40, 255]);
    for (let y = 0; y < 300; y++) for (let x = 300; x < 400; x++) img.data.set([30, 160, 40, 255], (y * 400 + x) * 4);
    fs.writeFileSync(join(dir, 'halves.png'), await encodeImage(img, 'png'));
    const classes = {
      classes: [
        { name: 'peel', color: [255, 0, 0], regions: [{ x: 0, y: 0, width: 10, height: 10 }] },
        { name: 'leaf', color: [0, 255, 0], regions: [{ x: 390.7, y: 5, width: 5, height: 5 }] },
      ],
    };
    fs.writeFileSync(join(dir, 'classes.json'), JSON.stringify(classes));
    const k = await mango([
      'kmeans',
      join(dir, 'halves.png'),
      '--classes',
      join(dir, 'classes.json'),
      '--out',
      join(dir, 'k.json'),
    ]);
    expect(k.code).toBe(0);
    expect(JSON.parse(fs.readFileSync(join(dir, 'k.json'), 'utf8'))).toEqual([
      { name: 'peel', color: [255, 0, 0], percent: '75.00' },
      { name: 'leaf', color: [0, 255, 0], percent: '25.00' },
    ]);
    const bad = await mango(['kmeans', join(dir, 'halves.png'), '--classes', join(dir, 'in/notes.txt')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a readable JSON file');
  });

  it('scores bruises: the per-photo table, overlays and 0/255 masks of the input size, failures listed and rows', async () => {
    const fs = await import('node:fs');
    // An orange fruit with a dark brown patch on a grey background.
    const img = createImage(240, 180, [128, 128, 128, 255]);
    for (let y = 0; y < 180; y++)
      for (let x = 0; x < 240; x++) {
        const inFruit = ((x - 120) / 90) ** 2 + ((y - 90) / 65) ** 2 <= 1;
        const inBruise = (x - 100) ** 2 + (y - 80) ** 2 <= 18 ** 2;
        if (inFruit) img.data.set(inBruise ? [95, 60, 25, 255] : [235, 170, 45, 255], (y * 240 + x) * 4);
      }
    mkdirSync(join(dir, 'fruit'), { recursive: true });
    fs.writeFileSync(join(dir, 'fruit/mango.png'), await encodeImage(img, 'png'));
    fs.writeFileSync(join(dir, 'fruit/empty.jpg'), Buffer.alloc(0));
    const csv = join(dir, 'bruise.csv');
    const r = await mango([
      'bruise',
      join(dir, 'fruit'),
      '--out',
      csv,
      '--overlays',
      join(dir, 'ov'),
      '--masks',
      join(dir, 'masks'),
      '--method',
      'classical',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/empty\.jpg: empty\.jpg is empty \(0 bytes\)|empty\.jpg is empty/);
    const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
    expect(lines[0].startsWith('image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,')).toBe(true);
    // the failed photo is a row too, with its error
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^empty\.jpg,(,){15}empty\.jpg is empty \(0 bytes\)$/);
    const cells = lines[2].split(',');
    expect(cells[0]).toBe('mango.png');
    const fruitPixels = Number(cells[2]);
    const truthFruit = Math.PI * 90 * 65; // about 18378
    expect(Math.abs(fruitPixels - truthFruit) / truthFruit).toBeLessThan(0.03);
    const percent = Number(cells[4]);
    const truthPercent = (100 * Math.PI * 18 * 18) / truthFruit; // about 5.5
    expect(Math.abs(percent - truthPercent)).toBeLessThan(1.5);
    const fruitMask = await decodeImage(fs.readFileSync(join(dir, 'masks/mango.fruit.png')));
    expect([fruitMask.width, fruitMask.height]).toEqual([240, 180]);
    const values = new Set<number>();
    let set = 0;
    for (let i = 0; i < fruitMask.data.length; i += 4) {
      values.add(fruitMask.data[i]);
      if (fruitMask.data[i] === 255) set++;
    }
    expect([...values].sort((a, b) => a - b)).toEqual([0, 255]);
    expect(set).toBe(fruitPixels);
    expect(fs.existsSync(join(dir, 'ov/mango.overlay.jpg'))).toBe(true);
  });

  it('writes the per-fruit table, results.json (schema, 256 px overlays, provenance) and the HTML report', async () => {
    const fs = await import('node:fs');
    const { createHash } = await import('node:crypto');
    const { bruisedPairScene } = await import('@mango/core/testing');
    const { ResultsFile } = await import('@mango/core/results');
    // Two mangoes, the left one bruised.
    const { image } = bruisedPairScene(5);
    const lot = join(dir, 'lot');
    mkdirSync(lot, { recursive: true });
    const png = await encodeImage(image, 'png');
    fs.writeFileSync(join(lot, 'pair.png'), png);
    fs.writeFileSync(join(lot, 'pair-copy.png'), png);
    const fruits = join(dir, 'fruits.csv');
    const results = join(dir, 'results.json');
    const r = await mango(['bruise', lot, '--method', 'classical', '--fruits', fruits, '--out', results]);
    expect(r.code, r.stderr).toBe(0);
    const lines = fs.readFileSync(fruits, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      'image,fruit,bbox_x,bbox_y,bbox_w,bbox_h,fruit_pixels,bruise_pixels,bruise_percent,lesion_count,fruit_area_cm2,bruise_area_cm2,colour_difference,grade,size_group,weight_g,size_source,scale_status',
    );
    // One row per fruit: two photos of two mangoes.
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual([
      'pair-copy.png,1',
      'pair-copy.png,2',
      'pair.png,1',
      'pair.png,2',
    ]);
    const bruised = lines[1].split(',');
    expect(Number(bruised[8])).toBeGreaterThan(5); // bruise_percent of the left fruit
    expect(Number(bruised[12])).toBeGreaterThan(10); // its colour difference (CIEDE2000)
    expect(Number(lines[2].split(',')[8])).toBeLessThan(1);

    const sha = createHash('sha256').update(png).digest('hex');
    const sidecar = JSON.parse(fs.readFileSync(`${fruits}.provenance.json`, 'utf8'));
    expect(sidecar).toMatchObject({
      app: 'mango-bruise-tracker',
      source: 'cli',
      operation: 'bruise',
      method: 'classical',
      method_used: 'classical',
      plugin_version: '0.1.0',
      model_id: null,
      options: { method: 'classical' },
      inputs: [
        { filename: 'pair-copy.png', sha256: sha },
        { filename: 'pair.png', sha256: sha },
      ],
    });
    const file = ResultsFile.parse(JSON.parse(fs.readFileSync(results, 'utf8')));
    expect(file.provenance).toEqual(sidecar);
    expect(file.photos.map((p) => [p.filename, p.sha256, p.width, p.height])).toEqual([
      ['pair-copy.png', sha, 480, 240],
      ['pair.png', sha, 480, 240],
    ]);
    const thumb = await decodeImage(Buffer.from(file.photos[0].overlay_thumbnail!.split(',')[1], 'base64'));
    expect([thumb.width, thumb.height]).toEqual([256, 128]);

    // results.csv is the per-photo table of a stored run (table=images) and gets the same sidecar.
    const csv = join(dir, 'lot.csv');
    expect((await mango(['bruise', lot, '--method', 'classical', '--out', csv])).code).toBe(0);
    expect(fs.readFileSync(csv, 'utf8').split('\n')[0]).toBe(
      'image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,non_bruise_percent,lesion_count,colour_difference,method,model_id,px_per_cm,fruit_area_cm2,bruise_area_cm2,scale_status,scale_source,quality,error',
    );
    expect(JSON.parse(fs.readFileSync(`${csv}.provenance.json`, 'utf8')).inputs).toEqual(sidecar.inputs);

    const report = join(dir, 'report.html');
    const rep = await mango(['report', results, '--out', report, '--threshold', '2']);
    expect(rep.code, rep.stderr).toBe(0);
    const html = fs.readFileSync(report, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<tr><th>Photos (n)</th><td>2</td></tr>');
    expect(html).toContain('<tr><th>Share over 2 %</th><td>100.0 %</td></tr>');
    expect(html.match(/<img src="data:image\/jpeg;base64,[^"]+" alt="overlay of /g)).toHaveLength(2);
    expect(html.match(/<img src="data:image\/jpeg;base64,[^"]+" alt="photo /g)).toHaveLength(2);
    expect(html).toContain(sha.slice(0, 12));
    expect(html).not.toMatch(/<script|https?:\/\//);
    fs.writeFileSync(join(dir, 'not-results.json'), '{"photos": []}');
    const bad = await mango(['report', join(dir, 'not-results.json'), '--out', report]);
    expect(bad.code).toBe(2);
    // a file that fails its schema is not an option: no pointer to --help
    expect(bad.stderr).not.toContain('--help');
    // The report is the one the results' kind of run declares: a kind without one is refused, by name.
    const other = JSON.parse(fs.readFileSync(results, 'utf8'));
    other.provenance.operation = 'analyze';
    fs.writeFileSync(join(dir, 'analyze-results.json'), JSON.stringify(other));
    const none = await mango(['report', join(dir, 'analyze-results.json'), '--out', join(dir, 'none.html')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('results of the kind analyze have no report (reports exist for: bruise)');
    expect(fs.existsSync(join(dir, 'none.html'))).toBe(false);
  });

  it('runs the shipped bruise model by default (method column: model)', async () => {
    const { MODELS_DIR } = await import('@mango/models');
    const csv = join(dir, 'model.csv');
    const r = await mango(['bruise', join(MODELS_DIR, 'fixtures/sample-1.png'), '--out', csv]);
    expect(r.code, r.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    const [header, row] = readFileSync(csv, 'utf8').trim().split('\n');
    const cells = Object.fromEntries(header.split(',').map((h, i) => [h, row.split(',')[i]]));
    expect(cells.method).toBe('model');
    expect(Number(cells.bruise_percent)).toBeCloseTo(PINNED['sample-1.png'].percent, 1);
  });

  it('exits 2 on usage errors and 0 on --help / --version', async () => {
    for (const args of [[], ['frobnicate'], ['bruise'], ['bruise', dir, '--nope']]) {
      const r = await mango(args);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect((await mango(['--version'])).code).toBe(0);
    expect((await mango(['bruise', '--help'])).code).toBe(0);
  });

  it('reads .webp and .tif, and gives colliding output names a -2 suffix instead of overwriting', async () => {
    const sharp = (await import('sharp')).default;
    const src = join(dir, 'collide');
    mkdirSync(join(src, 'x'), { recursive: true });
    const tile = (w: number) => sharp({ create: { width: w, height: 10, channels: 3, background: '#c08020' } });
    writeFileSync(join(src, 'a.jpg'), await tile(11).jpeg().toBuffer());
    writeFileSync(join(src, 'a.png'), await tile(12).png().toBuffer());
    writeFileSync(join(src, 'b.webp'), await tile(13).webp().toBuffer());
    writeFileSync(join(src, 'c.tif'), await tile(14).tiff().toBuffer());
    writeFileSync(join(src, 'x/a.jpg'), await tile(15).jpeg().toBuffer());
    const out = join(dir, 'collide-out');
    // the folder, then x/a.jpg again as a file argument: its own name a.jpg collides with the first
    const r = await mango(['resize', src, join(src, 'x/a.jpg'), '--width', '4', '--height', '4', '--out-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    const names = readdirSync(out, { recursive: true }).map(String).sort();
    expect(names).toEqual(['a-2.jpg', 'a-3.jpg', 'a.jpg', 'b.jpg', 'c.jpg', 'x', 'x/a.jpg']);
    const widths = async (n: string) => (await sharp(join(out, n)).metadata()).width;
    expect(await widths('a.jpg')).toBe(4);
  });

  it('refuses invalid options with the schema message and exit code 2', async () => {
    const r = await mango(['resize', join(dir, 'in'), '--width', '100', '--out-dir', join(dir, 'x')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Please enter both width and height!');
    expect(r.stderr).toContain('(mango resize --help lists its options)');
    // the bruise flags are BruiseOptions': their schema checks them, in mango bruise and mango eval bruise
    const scale = await mango(['bruise', join(dir, 'in'), '--px-per-cm', '-3']);
    expect(scale.code).toBe(2);
    expect(scale.stderr).toMatch(/pxPerCm/);
    const method = await mango(['eval', 'bruise', '--method', 'best']);
    expect(method.code).toBe(2);
    expect(method.stderr).toMatch(/"auto"\|"classical"\|"model"/);
    expect(method.stderr).toContain('(mango eval bruise --help lists its options)');
  });
});
