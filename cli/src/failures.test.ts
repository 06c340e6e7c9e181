/**
 * Loud, recorded failures (issue 27 item 4), through the built `mango` command: usage errors for
 * inputs that are missing or hold no image, symbolic links followed without looping, failed photos
 * as rows of the per-photo table and entries of the provenance, a reference object not found said
 * on stderr and in `scale_status`, `--require-scale`, and the pixel limit of --max-megapixels /
 * MAX_MEGAPIXELS.
 */
import { describe, expect, it, beforeAll } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { mango } from './testing.ts';

/** The cells of a CSV line (no quoted commas in these tests), by header. */
const rowsOf = (csv: string) => {
  const [header, ...lines] = csv.trim().split('\n');
  const names = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [names[i], v])));
};

describe('mango: loud, recorded failures', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-failures-'));
    mkdirSync(join(dir, 'lot'));
    // two mangoes, no reference disc; and a text file renamed .jpg
    writeFileSync(join(dir, 'lot/pair.png'), await encodeImage(bruisedPairScene(5).image, 'png'));
    writeFileSync(join(dir, 'lot/broken.jpg'), 'not a photo');
    mkdirSync(join(dir, 'empty'));
    mkdirSync(join(dir, 'no-images'));
    writeFileSync(join(dir, 'no-images/notes.txt'), 'no photo here');
    mkdirSync(join(dir, 'real/deeper'), { recursive: true });
    const tile = await encodeImage(createImage(40, 30, [200, 140, 40, 255]), 'png');
    writeFileSync(join(dir, 'real/a.png'), tile);
    writeFileSync(join(dir, 'real/deeper/b.png'), tile);
  });

  it('an input that does not exist, or inputs with no image: exit 2 with a message, nothing on stdout', async () => {
    for (const args of [
      ['bruise', join(dir, 'missing.jpg')],
      ['bruise', join(dir, 'lot'), join(dir, 'missing.jpg')],
      ['features', join(dir, 'missing.jpg'), '--features', 'rgb'],
      ['resize', join(dir, 'missing.jpg'), '--width', '9', '--height', '9', '--out-dir', join(dir, 'never')],
    ]) {
      const r = await mango(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr).toContain(`not found: ${join(dir, 'missing.jpg')}`);
    }
    expect(existsSync(join(dir, 'never'))).toBe(false);
    for (const folder of ['empty', 'no-images']) {
      const r = await mango(['bruise', join(dir, folder)]);
      expect(r.code, folder).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`no images found in ${join(dir, folder)} (looked for .jpg, .jpeg, .png`);
    }
  });

  it('names a failed file with control characters as escapes on the terminal; features and bruise give the same reason', async () => {
    const hostile = join(dir, 'hostile');
    mkdirSync(hostile);
    const name = 'bad\nname\u001b[31m.jpg';
    writeFileSync(join(hostile, name), 'not a photo');
    writeFileSync(join(hostile, 'good.png'), await encodeImage(createImage(40, 30, [200, 140, 40, 255]), 'png'));
    const r = await mango(['bruise', hostile, '--method', 'classical', '--out', join(dir, 'hostile.csv')]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('\u001b');
    const listed = r.stderr.split('\n').filter((l) => l.startsWith('  '));
    expect(listed).toEqual([
      `  ${join(hostile, 'bad\\nname\\x1b[31m.jpg')}: not a supported image (JPEG or PNG expected)`,
    ]);
    // a dead link named with an escape sequence: its warning line too, and a missing input's usage error
    symlinkSync(join(dir, 'gone.png'), join(hostile, 'dead\u001b[2J.png'));
    const again = await mango(['bruise', hostile, join(dir, 'no\nsuch.jpg')]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`not found: ${join(dir, 'no\\nsuch.jpg')}`);
    const warned = await mango(['bruise', hostile, '--method', 'classical', '--out', join(dir, 'hostile.csv')]);
    expect(warned.stderr).toContain(
      `warning: ${join(hostile, 'dead\\x1b[2J.png')}: a symbolic link to nothing, skipped`,
    );
    expect(warned.stderr).not.toContain('\u001b');
    const f = await mango(['features', hostile, '--features', 'rgb', '--out', join(dir, 'hostile.json')]);
    expect(f.code).toBe(1);
    const items = JSON.parse(readFileSync(join(dir, 'hostile.json'), 'utf8')) as {
      image_name: string;
      error?: string;
    }[];
    expect(items.find((i) => i.image_name === name)?.error).toBe('not a supported image (JPEG or PNG expected)');
    expect(items.find((i) => i.image_name === 'good.png')?.error).toBeUndefined();
  });

  it('follows symbolic links to files and folders, searches a folder once (no loop) and skips a dead link', async () => {
    const links = join(dir, 'links');
    mkdirSync(links);
    symlinkSync(join(dir, 'real/a.png'), join(links, 'photo.png'));
    symlinkSync(join(dir, 'real/deeper'), join(links, 'folder'));
    symlinkSync(links, join(links, 'loop')); // a link back to the folder itself
    symlinkSync(join(dir, 'real'), join(links, 'again')); // reaches real/deeper a second time
    symlinkSync(join(dir, 'gone.png'), join(links, 'dead.png'));
    const out = join(dir, 'links-out');
    const r = await mango(['resize', links, '--width', '8', '--height', '6', '--out-dir', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('3 of 3 images');
    expect(r.stderr).toContain(`warning: ${join(links, 'dead.png')}: a symbolic link to nothing, skipped`);
    const written = readdirSync(out, { recursive: true }).map(String).sort();
    // again/a.png, again/deeper/b.png (real/deeper is searched through `again` first: sorted names),
    // photo.png; `folder` is real/deeper again and `loop` is links itself: neither searched twice
    expect(written).toEqual(['again', 'again/a.jpg', 'again/deeper', 'again/deeper/b.jpg', 'photo.jpg']);
  });

  it('a reference not found: a warning line and scale_status not-found; a failed photo is a row and a provenance entry', async () => {
    const r = await mango(['bruise', join(dir, 'lot'), '--method', 'classical', '--reference-mm', '25']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'warning: pair.png: no 25 mm reference object found in the photo: it has no scale, so no cm² figures',
    );
    expect(r.stderr).toMatch(/1 failed:\n.*broken\.jpg: not a supported image/);
    const rows = rowsOf(r.stdout);
    expect(rows.map((row) => [row.image, row.fruit_count, row.scale_status, row.fruit_area_cm2])).toEqual([
      ['broken.jpg', '', '', ''],
      ['pair.png', '2', 'not-found', ''],
    ]);
    expect(rows[0].error).toMatch(/^not a supported image/);
    expect(rows[1].error).toBe('');

    const csv = join(dir, 'lot.csv');
    expect((await mango(['bruise', join(dir, 'lot'), '--method', 'classical', '--out', csv])).code).toBe(1);
    expect(rowsOf(readFileSync(csv, 'utf8')).map((row) => row.scale_status)).toEqual(['', 'none']);
    const provenance = JSON.parse(readFileSync(`${csv}.provenance.json`, 'utf8'));
    expect(provenance.inputs).toEqual([
      {
        filename: 'broken.jpg',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        error: expect.stringMatching(/^not a supported image/),
      },
      { filename: 'pair.png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
  });

  it('--require-scale makes the missing reference an error; with every photo failed stdout stays empty', async () => {
    const args = ['bruise', join(dir, 'lot'), '--method', 'classical', '--reference-mm', '25', '--require-scale'];
    const r = await mango(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('bruise: 0 of 2 images');
    expect(r.stderr).toMatch(/pair\.png: no 25 mm reference object found in the photo/);
    const csv = join(dir, 'required.csv');
    expect((await mango([...args, '--out', csv])).code).toBe(1);
    const lines = readFileSync(csv, 'utf8').trim().split('\n');
    // the reason holds commas: the cell is quoted
    expect(lines[2]).toMatch(/^pair\.png,(,){15}"no 25 mm reference object found in the photo: it has no scale, /);
  });

  it('--max-megapixels and MAX_MEGAPIXELS limit the images, as on the server; a bad value is a usage error', async () => {
    // pair.png is 480x240: 0.1152 megapixels
    const args = ['bruise', join(dir, 'lot/pair.png'), '--method', 'classical'];
    const flag = await mango([...args, '--max-megapixels', '0.1']);
    expect(flag.code).toBe(1);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toContain('image is 480x240 (0.1 megapixels); the limit is 0.1 megapixels');
    const env = await mango(args, { MAX_MEGAPIXELS: '0.1' });
    expect(env.code).toBe(1);
    expect(env.stderr).toContain('image is 480x240');
    // the flag wins over the environment
    const both = await mango([...args, '--max-megapixels', '1'], { MAX_MEGAPIXELS: '0.1' });
    expect(both.code, both.stderr).toBe(0);
    expect(rowsOf(both.stdout)[0].image).toBe('pair.png');
    const bad = await mango([...args, '--max-megapixels', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-megapixels must be a number of megapixels over 0 (got lots)');
    const badEnv = await mango(
      ['resize', join(dir, 'real'), '--width', '8', '--height', '6', '--out-dir', join(dir, 'x')],
      {
        MAX_MEGAPIXELS: '-1',
      },
    );
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('MAX_MEGAPIXELS must be a number of megapixels over 0 (got -1)');
  });
});
