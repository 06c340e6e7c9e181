/**
 * Annotation files for tests (issue 28 item 2): a CVAT "Segmentation mask 1.1" export as a zip, built
 * from 0/1 masks (the colours of its labelmap: fruit and bruise), as CVAT writes it.
 */
import JSZip from 'jszip';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';

/** One photo's masks in a CVAT export: `stem` is the photo's name without its extension. */
export interface CvatMasks {
  stem: string;
  width: number;
  height: number;
  fruit: Uint8Array;
  bruise: Uint8Array;
}

const FRUIT_RGB = [51, 221, 255];
const BRUISE_RGB = [250, 50, 83];

/** The zip of a CVAT "Segmentation mask 1.1" export of `photos` (labelmap, class masks, the image set). */
export async function cvatZip(photos: readonly CvatMasks[]): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file(
    'labelmap.txt',
    `# label:color_rgb:parts:actions\nbackground:0,0,0::\nfruit:${FRUIT_RGB.join()}::\nbruise:${BRUISE_RGB.join()}::\n`,
  );
  for (const p of photos) {
    const classes = createImage(p.width, p.height, [0, 0, 0, 255]);
    for (let i = 0; i < p.width * p.height; i++) {
      const rgb = p.bruise[i] ? BRUISE_RGB : p.fruit[i] ? FRUIT_RGB : null;
      if (rgb) classes.data.set(rgb, i * 4);
    }
    zip.file(`SegmentationClass/${p.stem}.png`, await encodeImage(classes, 'png'));
  }
  zip.file('ImageSets/Segmentation/default.txt', photos.map((p) => `${p.stem}\n`).join(''));
  return zip.generateAsync({ type: 'uint8array' });
}
