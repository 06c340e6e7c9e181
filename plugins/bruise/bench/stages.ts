/**
 * Per-stage timing of classical scoring on the bench photos (a profiling aid, not a target check):
 * node --import tsx plugins/bruise/bench/stages.ts [runs]. Medians over the runs, in ms.
 */
import { readFileSync } from 'node:fs';
import { fitSize, downscaleArea, labelBoxes, segmentFruit } from '@mango/core';
import { decodeImage } from '@mango/core/node';
import { benchPhotos, median, sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { SEGMENT_COARSE_SIZE } from '../src/analyse.ts';
import { fruitBlockFactor } from '../src/classical.ts';
import { cropFruit } from '../src/classical/crop.ts';
import { darkSpots } from '../src/classical/dark-spots.ts';
import { bruiseEvidence, DEFAULT_CLASSICAL, lesionsFromEvidence } from '../src/classical/evidence.ts';
import { peelBackground } from '../src/classical/peel-background.ts';

const shared = sharedDir();
if (!shared) {
  console.log(SHARED_MISSING);
  process.exit(0);
}
const runs = Number(process.argv[2] ?? 15);
for (const photo of await benchPhotos(shared, '/tmp/mango-bruise-bench/large')) {
  const bytes = readFileSync(photo.path);
  const t: Record<string, number[]> = {};
  const lap = (name: string, since: number) => {
    (t[name] ??= []).push(performance.now() - since);
    return performance.now();
  };
  let fruitPixels = 0;
  for (let k = 0; k < runs + 2; k++) {
    let s = performance.now();
    const image = await decodeImage(bytes, undefined, undefined, { maxSide: 640 });
    s = lap('decode640', s);
    const size = fitSize(image.width, image.height, 640);
    const work = downscaleArea(image, size.width, size.height);
    const seg = segmentFruit(work, { workSize: SEGMENT_COARSE_SIZE });
    s = lap('segment', s);
    const boxes = labelBoxes(seg.labels, work.width, work.height, seg.count);
    fruitPixels = 0;
    for (let f = 1; f <= seg.count; f++) {
      const bx = boxes[f];
      if (!bx || bx.area < 16) continue;
      fruitPixels += bx.area;
      const crop = cropFruit(work, seg.labels, f, bx, fruitBlockFactor(bx.area));
      s = lap('crop', s);
      const bg = peelBackground(crop);
      s = lap('background', s);
      const e = bruiseEvidence(crop, bg);
      const les = lesionsFromEvidence(crop, bg, e, DEFAULT_CLASSICAL);
      s = lap('evidence+lesions', s);
      darkSpots(crop, bg.dist, DEFAULT_CLASSICAL.darkening);
      s = lap('spots', s);
      void les;
    }
    if (k < 2) for (const key of Object.keys(t)) t[key] = [];
  }
  console.log(
    `${photo.name.padEnd(12)} fruit px ${fruitPixels}: ` +
      Object.entries(t)
        .map(([k, v]) => `${k} ${median(v).toFixed(1)}/${Math.min(...v).toFixed(1)}`)
        .join(', '),
  );
}
