import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { evaluateBruise, formatBruiseEvaluation } from './index.ts';

const shared = sharedDir();
const dev = shared ? join(shared, 'data', 'bruise-dev', 'synthetic_composites') : '';

describe('bruise evaluation on the synthetic composites (development split)', () => {
  it.skipIf(!shared)(
    'reaches the pixel targets with segmentFruit and the classical method',
    async () => {
      const ev = await evaluateBruise({ images: join(dev, 'images'), truth: dev, method: 'classical' });
      console.log(formatBruiseEvaluation(ev));
      const p = ev.pixel!;
      expect(p.images).toBe(29);
      expect(p.fruit_iou_median).toBeGreaterThanOrEqual(0.97);
      expect(p.abs_error_median).toBeLessThanOrEqual(1.0);
      expect(p.abs_error_p90).toBeLessThanOrEqual(3);
      expect(p.lin_ccc).toBeGreaterThan(0.95);
      expect(p.clean_images).toBe(6);
      expect(p.clean_max_percent).toBeLessThan(0.5);
    },
    900_000,
  );
  if (!shared) it.skip(SHARED_MISSING, () => {});
});
