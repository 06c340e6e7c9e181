import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import { mango } from './testing.ts';

const shared = sharedDir();

describe.skipIf(!shared)(`mango bruise photo-quality flags${shared ? '' : ` (${SHARED_MISSING})`}`, () => {
  const setUp = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mango-quality-'));
    mkdirSync(join(dir, 'in'));
    const clean = readFileSync(
      join(shared!, 'data/bruise-dev/synthetic_composites/images/syn_senmango_healthy_188.jpg'),
    );
    writeFileSync(join(dir, 'in/clean.jpg'), clean);
    writeFileSync(join(dir, 'in/q10.jpg'), await sharp(clean).jpeg({ quality: 10 }).toBuffer());
    return dir;
  };
  const column = (csv: string, name: string) => {
    const [header, ...rows] = csv.trim().split('\n');
    const i = header.split(',').indexOf(name);
    return Object.fromEntries(rows.map((r) => [r.split(',')[0], r.split(',')[i]]));
  };

  it('scores and flags: the quality column and the JSON flags with their reason', async () => {
    const dir = await setUp();
    const csv = join(dir, 'results.csv');
    const r = await mango(['bruise', join(dir, 'in'), '--method', 'classical', '--out', csv]);
    expect(r.code, r.stderr).toBe(0);
    expect(column(readFileSync(csv, 'utf8'), 'quality')).toEqual({ 'clean.jpg': '', 'q10.jpg': 'jpeg-compression' });
    const json = join(dir, 'results.json');
    expect((await mango(['bruise', join(dir, 'in'), '--method', 'classical', '--out', json])).code).toBe(0);
    const file = JSON.parse(readFileSync(json, 'utf8')) as {
      photos: { filename: string; result: { quality: { flags: Record<string, unknown>[] } } }[];
    };
    const q10 = file.photos.find((p) => p.filename === 'q10.jpg')!;
    expect(q10.result.quality.flags).toEqual([
      {
        id: 'jpeg-compression',
        message: expect.stringMatching(/^heavy JPEG compression: the file was saved at quality 10 .*below 40/),
        value: 10,
        threshold: 40,
      },
    ]);
    // the report has a section with the reason
    const report = join(dir, 'report.html');
    expect((await mango(['report', json, '--out', report])).code).toBe(0);
    const html = readFileSync(report, 'utf8');
    expect(html).toContain('<h2>Photo quality</h2>');
    expect(html).toContain('1 of 2 photo(s) passed every check; 1 flagged.');
    expect(html).toMatch(/<td>q10\.jpg<\/td><td><span class="flag">jpeg-compression<\/span><\/td><td>heavy JPEG/);
  });

  it('--strict-quality refuses the flagged photo as a failure (exit 1, its reason) and scores the clean one', async () => {
    const dir = await setUp();
    const csv = join(dir, 'strict.csv');
    const r = await mango(['bruise', join(dir, 'in'), '--method', 'classical', '--strict-quality', '--out', csv]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/q10\.jpg.*refused by strict quality: heavy JPEG compression: .*quality 10/);
    // the refused photo is a row with its error (the one per-photo table keeps failures), its figures blank
    expect(column(readFileSync(csv, 'utf8'), 'quality')).toEqual({ 'clean.jpg': '', 'q10.jpg': '' });
    expect(column(readFileSync(csv, 'utf8'), 'error')['q10.jpg']).toMatch(/refused by strict quality/);
    const provenance = JSON.parse(readFileSync(`${csv}.provenance.json`, 'utf8')) as { options: object };
    expect(provenance.options).toMatchObject({ strictQuality: true });
  });
});
