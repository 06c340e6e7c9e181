/**
 * A bruise run's truth as data (issue 28 item 2; core/src/runs.ts RunAnnotations): the corrected
 * photos exported as the COCO file `mango bruise --export-coco` writes (RLE; `fruit`, one annotation
 * per fruit, and its `bruise`), and imported from COCO, CVAT "Segmentation mask 1.1" (zip) or Label
 * Studio JSON through the readers `mango eval bruise --truth` uses (eval/truth-formats.ts).
 * Browser-safe (it is part of the run declaration).
 */
import type { RunAnnotations } from '@mango/core';
import { cocoFileOfMasks } from './eval/coco.ts';
import { openTruthInput } from './eval/truth-formats.ts';
import type { TruthFormat } from './eval/truth-masks.ts';

/** How a stored truth's `source` names each format it was imported from (after `import:`). */
export const IMPORT_SOURCES: Record<TruthFormat, string> = {
  coco: 'coco',
  'cvat-mask': 'cvat',
  'label-studio': 'labelstudio',
  'png-folders': 'png-folders',
};

export const bruiseAnnotations: RunAnnotations = {
  exportType: { format: 'coco', mediaType: 'application/json', suffix: '.coco.json' },
  write: (photos, info) => cocoFileOfMasks(photos, info),
  read(input, decode) {
    const truth = openTruthInput(input, decode);
    return { ...truth, source: IMPORT_SOURCES[truth.format] };
  },
};
