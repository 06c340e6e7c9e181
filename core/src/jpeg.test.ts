import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { jpegQuality } from './jpeg.ts';
import { decodeImage } from './node/index.ts';

/** A textured 64x48 picture, so the encoder has something to quantise. */
function picture() {
  const data = Buffer.alloc(64 * 48 * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 37 + ((i / 3) | 0) * 11) % 256;
  return sharp(data, { raw: { width: 64, height: 48, channels: 3 } });
}

describe('jpegQuality', () => {
  it('reads the IJG quality back from the quantisation table of JPEGs libjpeg wrote', async () => {
    for (const q of [5, 10, 25, 40, 50, 75, 92]) {
      const bytes = new Uint8Array(await picture().jpeg({ quality: q }).toBuffer());
      expect(jpegQuality(bytes), `quality ${q}`).toBe(q);
    }
  });
  it('null for a PNG, an empty file and a JPEG cut before its tables', async () => {
    const png = new Uint8Array(await picture().png().toBuffer());
    expect(jpegQuality(png)).toBeNull();
    expect(jpegQuality(new Uint8Array(0))).toBeNull();
    const jpeg = new Uint8Array(await picture().jpeg({ quality: 50 }).toBuffer());
    expect(jpegQuality(jpeg.slice(0, 20))).toBeNull();
  });
  it('the Node decoder sets jpegQuality on a JPEG (also decoded reduced) and not on a PNG', async () => {
    const jpeg = new Uint8Array(await picture().jpeg({ quality: 30 }).toBuffer());
    expect((await decodeImage(jpeg, 'a.jpg')).jpegQuality).toBe(30);
    expect((await decodeImage(jpeg, 'a.jpg', undefined, { maxSide: 32 })).jpegQuality).toBe(30);
    expect((await decodeImage(new Uint8Array(await picture().png().toBuffer()), 'a.png')).jpegQuality).toBeUndefined();
  });
});
