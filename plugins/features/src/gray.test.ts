/**
 * gray and G8 against scikit-image: the tie colours offline, and every one of the 2^24 colours
 * against the live reference (features_ref.py's own rgb2gray and img_as_ubyte under
 * /usr/bin/python3, numpy on the reference BLAS), in a wide image and in a 1-px-wide one (numpy
 * takes another BLAS routine for that shape). The live part skips with a message when ../shared,
 * the Python reference or the reference BLAS is not available.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { createImage, type RasterImage } from '@mango/core';
import { sharedDir } from '@mango/core/testing/node';
import { describe, expect, it } from 'vitest';
import { grayOf, grayPlanes, rint } from './gray.ts';
import { PYTHON, referenceEnv, referenceUnavailable, TIE_COLOURS } from './skimageReference.ts';

const shared = sharedDir();
const unavailable = referenceUnavailable(shared);
if (unavailable) console.warn(unavailable);

/** An image of the given colours (r, g, b) in a row (height 1) or a column (width 1). */
function strip(colours: ReadonlyArray<readonly number[]>, shape: 'row' | 'column'): RasterImage {
  const n = colours.length;
  const image = shape === 'row' ? createImage(n, 1) : createImage(1, n);
  colours.forEach(([r, g, b], i) => image.data.set([r, g, b, 255], 4 * i));
  return image;
}

describe('gray and G8', () => {
  it('rounds the tie colours as scikit-image does (plain IEEE sum, left to right)', () => {
    for (const shape of ['row', 'column'] as const) {
      const { g8 } = grayPlanes(strip(TIE_COLOURS, shape));
      expect([...g8], shape).toEqual(TIE_COLOURS.map((c) => c[3]));
    }
    for (const [r, g, b, want] of TIE_COLOURS) expect(rint(grayOf(r, g, b) * 255), `${r},${g},${b}`).toBe(want);
  });

  it('gray is ((r / 255) 0.2125 + (g / 255) 0.7154) + (b / 255) 0.0721 to the last bit, in grayOf and grayPlanes', () => {
    const colours: number[][] = [];
    for (let k = 0; k < 5000; k++) colours.push([(k * 37) % 256, (k * 101) % 256, (k * 211) % 256]);
    const { gray, g8 } = grayPlanes(strip(colours, 'row'));
    colours.forEach(([r, g, b], i) => {
      const want = (r / 255) * 0.2125 + (g / 255) * 0.7154 + (b / 255) * 0.0721;
      expect(gray[i]).toBe(want);
      expect(grayOf(r, g, b)).toBe(want);
      expect(g8[i]).toBe(rint(want * 255));
    });
  });

  it('rint rounds half to even like numpy.rint', () => {
    expect([0.5, 1.5, 2.5, 3.5, 254.5, 2.4999999999999996, 2.5000000000000004].map(rint)).toEqual([
      0, 2, 2, 4, 254, 2, 3,
    ]);
  });
});

// Every colour c = r << 16 | g << 8 | b in order, through features_ref's own conversion lines.
const ALL_COLOURS = `
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import features_ref as ref
c = np.arange(1 << 24, dtype=np.uint32)
rgb = np.stack([(c >> 16) & 255, (c >> 8) & 255, c & 255], -1).astype(np.uint8)
for shape in ((4096, 4096, 3), (1 << 24, 1, 3)):
    rgbf = rgb.reshape(shape).astype(np.float64) / 255.0   # as features_for
    g8 = ref.img_as_ubyte(ref.color.rgb2gray(rgbf))
    sys.stdout.buffer.write(np.ascontiguousarray(g8).tobytes())
`;

describe.skipIf(unavailable !== null)('G8 against the live scikit-image reference, all 2^24 colours', () => {
  it('every colour gives skimage img_as_ubyte(rgb2gray) in a 4096 x 4096 image and in a 1-px-wide one', () => {
    const n = 1 << 24;
    const out = execFileSync(PYTHON, ['-c', ALL_COLOURS, join(shared!, 'reference')], {
      maxBuffer: 2 * n + 1024,
      env: referenceEnv(),
    });
    expect(out.length).toBe(2 * n);
    for (const [k, [width, height]] of [
      [4096, 4096],
      [1, n],
    ].entries()) {
      const image = createImage(width, height);
      const d = image.data;
      for (let c = 0, j = 0; c < n; c++, j += 4) {
        d[j] = c >> 16;
        d[j + 1] = (c >> 8) & 255;
        d[j + 2] = c & 255;
        d[j + 3] = 255;
      }
      const { g8 } = grayPlanes(image);
      const reference = out.subarray(k * n, (k + 1) * n);
      const differing: string[] = [];
      let count = 0;
      for (let c = 0; c < n; c++)
        if (g8[c] !== reference[c] && count++ < 5)
          differing.push(`${(c >> 16) & 255},${(c >> 8) & 255},${c & 255}: ours ${g8[c]}, skimage ${reference[c]}`);
      expect({ shape: `${width}x${height}`, count, differing }).toEqual({
        shape: `${width}x${height}`,
        count: 0,
        differing: [],
      });
    }
  }, 300_000);
});
