import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { inflateSync } from 'node:zlib';
import { decodeImage, encodeImage, encodePngWithSharp } from './index.ts';
import { createImage } from '../image.ts';
import { pngHeader } from '../testing/png-header.ts';

describe('node image backend', () => {
  it('applies the EXIF orientation', async () => {
    // 4x2 image stored with orientation 6 (rotate 90 clockwise to display): decoded as 2x4.
    const jpeg = await sharp(Buffer.alloc(4 * 2 * 3, 128), { raw: { width: 4, height: 2, channels: 3 } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const img = await decodeImage(jpeg, 'rotated.jpg');
    expect([img.width, img.height]).toEqual([2, 4]);
  });

  it('decodes straight to maxSide (shrink-on-load) and reports the oriented source size', async () => {
    // A 1200x800 photo stored with orientation 6: displayed as 800x1200.
    const left = Buffer.alloc(1200 * 800 * 3);
    for (let i = 0; i < 1200 * 800; i++) left.set(i % 1200 < 600 ? [200, 40, 40] : [40, 40, 200], i * 3);
    const jpeg = await sharp(left, { raw: { width: 1200, height: 800, channels: 3 } })
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const small = await decodeImage(jpeg, 'big.jpg', undefined, { maxSide: 300 });
    expect([small.width, small.height]).toEqual([200, 300]);
    expect(small.source).toEqual({ width: 800, height: 1200 });
    // Rotated 90 degrees clockwise: the red half (left) is on top now.
    expect(small.data[0]).toBeGreaterThan(150);
    expect(small.data[299 * 200 * 4 + 2]).toBeGreaterThan(150);
    // No reduction when the photo already fits: no source either.
    const same = await decodeImage(jpeg, 'big.jpg', undefined, { maxSide: 1200 });
    expect([same.width, same.height, same.source]).toEqual([800, 1200, undefined]);
  });

  it('refuses a 30000x30000 PNG from its header, before decoding', async () => {
    await expect(decodeImage(pngHeader(30000, 30000), 'huge.png')).rejects.toMatchObject({
      code: 'IMAGE_TOO_LARGE',
      message: expect.stringContaining('900.0 megapixels'),
    });
  });

  it('refuses a thin 1x49,000,000 PNG (under the pixel limit) and extreme sides or aspect ratios', async () => {
    await expect(decodeImage(pngHeader(1, 49_000_000), 'thin.png')).rejects.toMatchObject({
      code: 'IMAGE_TOO_LARGE',
      message: 'thin.png: image is 1x49000000; the longest side accepted is 30000 pixels',
    });
    await expect(decodeImage(pngHeader(30_001, 1000), 'wide.png')).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
    await expect(decodeImage(pngHeader(21_000, 1000), 'strip.png')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      status: 400,
      message: 'strip.png: image is 21000x1000; its long side may be at most 20 times its short side',
    });
    await expect(decodeImage(pngHeader(3, 80), 'tall.png')).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // 20:1 exactly is accepted
    const edge = await sharp({ create: { width: 400, height: 20, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    expect((await decodeImage(new Uint8Array(edge), 'edge.png')).width).toBe(400);
  });

  it('names empty, non-image and truncated files clearly', async () => {
    await expect(decodeImage(new Uint8Array(0), 'empty.jpg')).rejects.toMatchObject({ code: 'EMPTY_FILE' });
    const pdf = new TextEncoder().encode('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n');
    await expect(decodeImage(pdf, 'doc.jpg')).rejects.toMatchObject({ code: 'UNSUPPORTED_IMAGE' });
    const jpeg = await encodeImage(createImage(64, 64, [10, 200, 30, 255]), 'jpeg');
    await expect(decodeImage(jpeg.slice(0, jpeg.length / 2), 'cut.jpg')).rejects.toMatchObject({
      code: 'CORRUPT_IMAGE',
    });
  });

  it('round-trips RGBA through PNG exactly and reports alpha', async () => {
    const img = createImage(3, 2, [1, 2, 3, 4]);
    img.data[0] = 250;
    const back = await decodeImage(await encodeImage(img, 'png'));
    expect(back.hasAlpha).toBe(true);
    expect(Array.from(back.data)).toEqual(Array.from(img.data));
  });

  it('refuses a malformed raster with an error instead of letting the native encoder abort the process', async () => {
    const bytes = (n: number) => new Uint8ClampedArray(n);
    // Too long (the Rust encoder panics on this), too short, fractional and zero sizes, 16-bit pixels.
    const bad = [
      [{ width: 2, height: 3, data: bytes(100) }, /a 2 x 3 RGBA image has 24 bytes, this one 100/],
      [{ width: 2, height: 3, data: bytes(20) }, /has 24 bytes, this one 20/],
      [{ width: 1.5, height: 2, data: bytes(12) }, /1.5 x 2 is not a positive whole number/],
      [{ width: 0, height: 2, data: bytes(0) }, /0 x 2 is not a positive whole number/],
      [{ width: 1, height: 1, data: new Uint16Array(4) as unknown as Uint8ClampedArray }, /not 8-bit RGBA/],
    ] as const;
    for (const [image, message] of bad) {
      await expect(encodeImage(image, 'png')).rejects.toThrow(message);
      await expect(encodeImage(image, 'jpeg')).rejects.toThrow(message);
    }
    // The process is still here and a good raster still encodes.
    expect((await encodeImage(createImage(2, 3, [9, 9, 9, 255]), 'png')).length).toBeGreaterThan(0);
  });

  it("writes PNGs (8-bit RGBA, Up filter, fast deflate) whose pixels are exactly those of sharp's PNG", async () => {
    // A cut-out-like picture: a noisy, shaded disc with a soft edge on transparent black, on an
    // unaligned view (a subarray one pixel into its buffer).
    const width = 301;
    const height = 203;
    const backing = new Uint8ClampedArray((width * height + 1) * 4);
    const img = { width, height, data: backing.subarray(4) };
    for (let y = 0; y < height; y++)
      for (let x = 0; x < width; x++) {
        const r = Math.hypot(x - 150, y - 100);
        const a = Math.max(0, Math.min(255, Math.round((90 - r) * 128)));
        if (a === 0) continue;
        img.data.set([(x * 7 + y * 3) % 256, (x * y) % 251, 200 - (r | 0), a], (y * width + x) * 4);
      }
    const png = Buffer.from(await encodeImage(img, 'png'));
    // IHDR: bit depth 8, colour type 6 (RGBA); every scanline of the inflated IDAT data starts
    // with filter type 2 (Up), which sharp's PNG (filter 0 on every line) does not write.
    expect([png.readUInt32BE(16), png.readUInt32BE(20), png[24], png[25]]).toEqual([width, height, 8, 6]);
    const idat: Buffer[] = [];
    for (let at = 8; at < png.length;) {
      const length = png.readUInt32BE(at);
      if (png.toString('ascii', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    const rows = inflateSync(Buffer.concat(idat));
    expect(rows.length).toBe(height * (1 + 4 * width));
    const filters = new Set(Array.from({ length: height }, (_, y) => rows[y * (1 + 4 * width)]));
    expect([...filters]).toEqual([2]);
    const decoded = await sharp(png).raw().toBuffer();
    const fromSharp = await sharp(Buffer.from(await encodePngWithSharp(img)))
      .raw()
      .toBuffer();
    expect(decoded.equals(Buffer.from(img.data.buffer, img.data.byteOffset, img.data.byteLength))).toBe(true);
    expect(decoded.equals(fromSharp)).toBe(true);
  });
});
