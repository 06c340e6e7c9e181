/** Runs each example the way its README says (one command) and checks what it produces. */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeImage } from '@mango/core/node';
import { repoRoot } from '@mango/core/testing/node';
import { generateSamplePhoto, writeSamplePhotos } from './sample-photos/generate.ts';
import { renderPage, startEmbedServer } from './widget-embed/serve.ts';

const run = promisify(execFile);
const tsx = (script: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  run(process.execPath, ['--import', 'tsx', resolve(repoRoot, script), ...args], { cwd: repoRoot, env });

let work: string;
let photos: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'mango-examples-'));
  photos = join(work, 'photos');
  await writeSamplePhotos(photos, 2);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('sample-photos', () => {
  it('generates the same photos every time, with truth.csv', async () => {
    const a = join(work, 'a');
    const b = join(work, 'b');
    const first = await tsx('examples/sample-photos/generate.ts', ['--count', '3', '--out', a]);
    expect(first.stdout).toContain('3 photos and truth.csv');
    await tsx('examples/sample-photos/generate.ts', ['--count', '3', '--out', b]);
    for (const f of ['mango-01.png', 'mango-02.png', 'mango-03.png', 'truth.csv']) {
      expect(readFileSync(join(a, f)).equals(readFileSync(join(b, f))), f).toBe(true);
    }
    const truth = readFileSync(join(a, 'truth.csv'), 'utf8').trim().split('\n');
    expect(truth[0]).toBe('filename,fruit_pixels,bruise_pixels,bruise_percent');
    expect(truth).toHaveLength(4);
    for (const row of truth.slice(1)) {
      const [, fruit, bruise, percent] = row.split(',').map(Number);
      expect(fruit).toBeGreaterThan(50_000);
      expect(bruise).toBeGreaterThan(0);
      expect(percent).toBeGreaterThan(0.5);
      expect(percent).toBeLessThan(25);
    }
  }, 60_000);

  it('draws a yellow-green fruit with a brown bruise on a plain background', async () => {
    const photo = generateSamplePhoto(1);
    const decoded = await decodeImage(readFileSync(join(photos, 'mango-02.png')));
    expect(Buffer.from(decoded.data).equals(Buffer.from(photo.image.data))).toBe(true);
    const px = (x: number, y: number) => [...photo.image.data.subarray((y * 640 + x) * 4, (y * 640 + x) * 4 + 3)];
    // corner: the pale blue background of photo 2
    const [br, bg, bb] = px(4, 4);
    expect(bb).toBeGreaterThan(br);
    expect(Math.abs(bg - 214)).toBeLessThan(20);
    // fruit pixels are yellow-green: red and green well above blue
    let fruit = 0;
    let brown = 0;
    for (let i = 0; i < photo.image.data.length; i += 4) {
      const [r, g, b] = [photo.image.data[i], photo.image.data[i + 1], photo.image.data[i + 2]];
      if (g > 120 && r > 90 && b < 90) fruit++;
      if (r < 110 && g < 80 && b < 50 && r > g) brown++;
    }
    expect(fruit / (640 * 480)).toBeGreaterThan(0.2);
    expect(brown).toBeGreaterThan(0.3 * photo.bruisePixels);
  });
});

describe('batch-score', () => {
  it('scores a folder from the Node script into a CSV', async () => {
    const dir = photos;
    writeFileSync(join(dir, 'broken.jpg'), 'not an image');
    const out = join(work, 'results.csv');
    const r = await tsx('examples/batch-score/score.ts', [dir, '--out', out]).catch(
      (e: { code: number; stdout: string }) => e,
    );
    expect('code' in r ? r.code : 0).toBe(1); // one file failed
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(
      'Filename,Total Mango Pixels,Bruise Percentage,Non-Bruise Percentage,bruise_pixels,fruit_count,lesion_count,method,error',
    );
    expect(lines).toHaveLength(4);
    const broken = lines.find((l) => l.startsWith('broken.jpg'))!;
    expect(broken).toMatch(/broken\.jpg,,,,,,,,.+/);
    const truth = Object.fromEntries(
      readFileSync(join(dir, 'truth.csv'), 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(','))
        .map(([f, fruit, , p]) => [f, { fruit: Number(fruit), percent: Number(p) }]),
    );
    for (const line of lines.filter((l) => l.startsWith('mango-'))) {
      const [file, fruitPixels, percent, healthy, , fruits, , method] = line.split(',');
      expect(method).toBe('classical');
      expect(Number(fruits)).toBe(1);
      expect(Number(percent) + Number(healthy)).toBeCloseTo(100, 3);
      // the plugin finds the painted fruit, and some bruise but not more than was painted
      expect(Math.abs(Number(fruitPixels) - truth[file].fruit) / truth[file].fruit).toBeLessThan(0.05);
      expect(Number(percent)).toBeGreaterThan(0.3);
      expect(Number(percent)).toBeLessThan(truth[file].percent + 2);
    }
    rmSync(join(dir, 'broken.jpg'));
  }, 240_000);
});

describe('batch-score with the CLI', () => {
  const hasCommand = existsSync(resolve(repoRoot, 'cli/src/commands/bruise.ts'));
  it.skipIf(!hasCommand)(
    'npx mango bruise <dir> --out results.csv: the same folder from the CLI',
    async () => {
      const out = join(work, 'cli.csv');
      await run(process.execPath, [resolve(repoRoot, 'cli/bin/mango.js'), 'bruise', photos, '--out', out], {
        cwd: repoRoot,
      });
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      // the one per-photo table of the CLI and the server (a stored run's table=images)
      expect(lines[0]).toMatch(/^image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,/);
      expect(lines).toHaveLength(3);
      expect(lines.slice(1).every((l) => l.startsWith('mango-0'))).toBe(true);
    },
    240_000,
  );
});

describe('widget-embed', () => {
  it('serves the partner page with the server URL and key filled in, escaped', async () => {
    const html = renderPage('index.html', { productUrl: 'http://127.0.0.1:9/', apiKey: 'mbt_"><script>' });
    expect(html).toContain('src="http://127.0.0.1:9/widget/mango-bruise-widget.iife.js"');
    expect(html).toContain('api-key="mbt_&quot;&gt;&lt;script&gt;"');
    const embed = await startEmbedServer({ productUrl: 'http://127.0.0.1:9', apiKey: 'mbt_x' });
    try {
      const page = await fetch(`${embed.url}/module.html`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("from 'http://127.0.0.1:9/widget/mango-bruise-widget.js'");
      expect((await fetch(`${embed.url}/secret.txt`)).status).toBe(404);
    } finally {
      await embed.close();
    }
  });
});

describe('postgres', () => {
  const url = process.env.TEST_DATABASE_URL;
  it.skipIf(!url)(
    'a user registered on one instance signs in on the other (needs TEST_DATABASE_URL)',
    async () => {
      const r = await tsx('examples/postgres/two-servers.ts', [], { ...process.env, DATABASE_URL: url });
      expect(r.stdout).toMatch(/registered pg_example_\S+ on A/);
      expect(r.stdout).toMatch(/signed in as pg_example_\S+ on B/);
      expect(r.stdout).toContain('OK: one database, two instances, one account.');
    },
    60_000,
  );
});

describe('scale-out', () => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) console.warn('examples/scale-out SKIPPED: set TEST_DATABASE_URL=postgres://... to run it');
  it.skipIf(!url)(
    'two instances and two mango worker processes score one job sent by mango bruise --server (needs TEST_DATABASE_URL)',
    async () => {
      const r = await tsx('examples/scale-out/scale-out.ts', ['12'], { ...process.env, DATABASE_URL: url });
      expect(r.stdout).toMatch(/^12 photos scored in/m);
      expect(r.stdout).toContain('OK: two instances, two workers, one job of 12 photos.');
    },
    90_000,
  );
});
