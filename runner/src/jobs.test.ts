import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage, decodeImage, thumbnailDataUrl } from '@mango/core/node';
import sharp from 'sharp';
import { createJobPool, runImageJob } from './index.ts';

async function png(w: number, h: number) {
  return encodeImage(createImage(w, h, [200, 120, 30, 255]), 'png');
}

describe('image jobs', () => {
  const pool = createJobPool({ threads: 2 });
  afterAll(() => pool.destroy());

  it('runs a resize pipeline on a worker thread and encodes the result', async () => {
    const r = await pool.run({
      name: 'a.png',
      bytes: await png(40, 20),
      steps: [{ plugin: 'resize', options: { width: 10, keepAspect: true } }],
      output: { format: 'jpeg' },
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.result).toEqual({ width: 10, height: 5 });
    const back = await decodeImage(r.image!);
    expect([back.width, back.height, back.format]).toEqual([10, 5, 'jpeg']);
  });

  it('scores a large photo decoded straight to the working size, reporting the photo itself', async () => {
    // 2400x1800: the bruise step declares decodeMaxSide 640, so the job decodes a 640x480 copy;
    // sizes, pixel counts and the masks are still those of the photo.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="2400" height="1800">
      <rect width="100%" height="100%" fill="#8c8c8a"/><ellipse cx="1200" cy="900" rx="800" ry="560" fill="#e0b43c"/></svg>`;
    const jpeg = new Uint8Array(await sharp(Buffer.from(svg)).jpeg().toBuffer());
    const r = await runImageJob({
      name: 'big.jpg',
      bytes: jpeg,
      steps: [{ plugin: 'bruise' }],
      images: ['fruit-mask', 'bruise-mask'],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const item = r.result as { filename: string; width: number; height: number; total_mango_pixels: number };
    expect(item.filename).toBe('big.jpg');
    // provenance: the sha256 of exactly the bytes scored
    expect(r.sha256).toBe(createHash('sha256').update(jpeg).digest('hex'));
    expect([item.width, item.height]).toEqual([2400, 1800]);
    expect(item.total_mango_pixels / (Math.PI * 800 * 560)).toBeCloseTo(1, 1);
    expect(Object.keys(r.images).sort()).toEqual(['bruise-mask', 'fruit-mask']);
    expect(r.images['fruit-mask'].mime).toBe('image/png');
    const fruit = await sharp(Buffer.from(r.images['fruit-mask'].bytes)).metadata();
    expect([fruit.width, fruit.height]).toEqual([2400, 1800]);
    expect(fruit.channels).toBe(1); // 8-bit greyscale, as the CLI's --masks help says
  });

  it('encodes whatever the last step returns: its default images, or the masks of the image it scored', async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600">
      <rect width="100%" height="100%" fill="#8c8c8a"/><ellipse cx="400" cy="300" rx="260" ry="180" fill="#e0b43c"/>
      <ellipse cx="330" cy="260" rx="60" ry="45" fill="#6e5228"/></svg>`;
    const bytes = new Uint8Array(await sharp(Buffer.from(svg)).png().toBuffer());
    // Unasked: the plugin's default, the overlay, as the JPEG it asks for; no result field holds pixels.
    const plain = await runImageJob({
      name: 'a.png',
      bytes,
      steps: [{ plugin: 'bruise', options: { method: 'classical' } }],
    });
    expect(plain.ok).toBe(true);
    if (!plain.ok) return;
    expect(Object.keys(plain.images)).toEqual(['overlay']);
    expect(plain.images.overlay.mime).toBe('image/jpeg');
    expect((await decodeImage(plain.images.overlay.bytes)).format).toBe('jpeg');
    expect(plain.result).not.toHaveProperty('images');
    // After a resize the masks are those of the resized image the figures were counted on.
    const r = await runImageJob({
      bytes,
      steps: [
        { plugin: 'resize', options: { width: 400, keepAspect: true } },
        { plugin: 'bruise', options: { method: 'classical' } },
      ],
      images: ['bruise-mask'],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const item = r.result as { width: number; height: number; bruise_pixels: number };
    expect([item.width, item.height]).toEqual([400, 300]);
    expect(Object.keys(r.images)).toEqual(['bruise-mask']);
    const { data, info } = await sharp(Buffer.from(r.images['bruise-mask'].bytes))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([400, 300]);
    expect(item.bruise_pixels).toBeGreaterThan(0);
    let set = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i] === 255) set++;
    expect(set).toBe(item.bruise_pixels);
  });

  it('returns a thumbnail of the photo as decoded when asked, made before a transform writes into it', async () => {
    // 1200x900, EXIF orientation 6 (turned a quarter): the thumbnail is upright, 192x256, and shows
    // the photo (grey background, yellow disc), not the cut-out the plugin wrote into the same pixels.
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900">
      <rect width="100%" height="100%" fill="#8c8c8a"/><ellipse cx="600" cy="450" rx="380" ry="300" fill="#e0b43c"/></svg>`;
    const jpeg = new Uint8Array(await sharp(Buffer.from(svg)).jpeg().withMetadata({ orientation: 6 }).toBuffer());
    const r = await runImageJob({
      name: 'turned.jpg',
      bytes: jpeg,
      steps: [{ plugin: 'remove-background' }],
      output: { format: 'png' },
      thumbnail: 256,
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.thumbnail).toMatch(/^data:image\/jpeg;base64,/);
    const thumb = Buffer.from(r.thumbnail!.split(',')[1], 'base64');
    const { data, info } = await sharp(thumb).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([192, 256]);
    // The corner is the grey background (a cut-out flattened on white would be 255), the centre the disc.
    expect([data[0], data[1], data[2]].every((v) => Math.abs(v - 0x8c) < 8)).toBe(true);
    const centre = (128 * 192 + 96) * 3;
    expect(Math.abs(data[centre] - 0xe0) < 10 && Math.abs(data[centre + 2] - 0x3c) < 14).toBe(true);
    // The same picture as a thumbnail made from the file's bytes.
    const fromBytes = Buffer.from((await thumbnailDataUrl(jpeg, 256)).split(',')[1], 'base64');
    expect((await sharp(fromBytes).metadata()).width).toBe(192);
    // Not asked: none.
    const plain = await runImageJob({ bytes: jpeg, steps: [{ plugin: 'remove-background' }] });
    expect(plain.ok && plain.thumbnail).toBeUndefined();
  });

  it('reports bad input as a typed failure without throwing', async () => {
    const cases: [Uint8Array, string][] = [
      [new Uint8Array(0), 'EMPTY_FILE'],
      [new TextEncoder().encode('%PDF-1.4 not an image'), 'UNSUPPORTED_IMAGE'],
      [(await png(50, 50)).slice(0, 60), 'CORRUPT_IMAGE'],
    ];
    for (const [bytes, code] of cases) {
      const r = await runImageJob({
        name: 'x.jpg',
        bytes,
        steps: [{ plugin: 'resize', options: { width: 5, height: 5 } }],
      });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe(code);
    }
  });

  it('refuses images above the pixel limit and files above the byte limit', async () => {
    const bytes = await png(300, 300);
    const big = await runImageJob({
      bytes,
      steps: [{ plugin: 'resize', options: { width: 5, height: 5 } }],
      maxPixels: 80_000,
    });
    expect(big.ok === false && big.error.code).toBe('IMAGE_TOO_LARGE');
    const heavy = await runImageJob({
      bytes,
      steps: [{ plugin: 'resize', options: { width: 5, height: 5 } }],
      maxBytes: 10,
    });
    expect(heavy.ok === false && heavy.error.code).toBe('FILE_TOO_LARGE');
  });
});
