/** Dev helper: fruit IoU on the shared synthetic composites, optional overlays to a folder. */
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { segmentFruit, maskIoU } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { sharedDir } from '@mango/core/testing/node';

const shared = sharedDir();
if (!shared) throw new Error('no shared data');
const root = join(shared, 'data/bruise-dev/synthetic_composites');
const outDir = process.argv[2];
if (outDir) mkdirSync(outDir, { recursive: true });
const ious: number[] = [];
for (const file of readdirSync(join(root, 'images')).sort()) {
  const stem = file.replace(/\.jpg$/, '');
  const img = await decodeImage(readFileSync(join(root, 'images', file)));
  const t0 = performance.now();
  const seg = segmentFruit(img);
  const ms = performance.now() - t0;
  const gt = await sharp(join(root, 'fruit_masks', stem + '.png'))
    .greyscale()
    .raw()
    .toBuffer();
  const truth = Uint8Array.from(gt, (v) => (v > 127 ? 1 : 0));
  const iou = maskIoU(seg.mask, truth);
  ious.push(iou);
  console.log(
    `${stem.padEnd(32)} ${img.width}x${img.height} iou=${iou.toFixed(4)} count=${seg.count} ${ms.toFixed(0)}ms`,
  );
  if (outDir) {
    const d = Buffer.from(img.data);
    for (let i = 0; i < seg.mask.length; i++) {
      const m = seg.mask[i],
        g = truth[i];
      if (m && !g) {
        d[i * 4] = 255;
        d[i * 4 + 1] = 0;
        d[i * 4 + 2] = 255;
      } else if (!m && g) {
        d[i * 4] = 0;
        d[i * 4 + 1] = 0;
        d[i * 4 + 2] = 255;
      }
    }
    await sharp(d, { raw: { width: img.width, height: img.height, channels: 4 } })
      .resize(400)
      .png()
      .toFile(join(outDir, stem + '.png'));
  }
}
ious.sort((a, b) => a - b);
const q = (p: number) => ious[Math.min(ious.length - 1, Math.floor(p * (ious.length - 1) + 0.5))];
console.log(`n=${ious.length} median=${q(0.5).toFixed(4)} min=${ious[0].toFixed(4)} p10=${q(0.1).toFixed(4)}`);
