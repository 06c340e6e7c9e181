import { describe, expect, it } from 'vitest';
import { operationSummary } from './history.ts';
import { FEATURE_IDS } from '@mango/plugin-features/names';

describe('operationSummary (the dashboard operation cell)', () => {
  it('summarises a feature analysis by its number of features and keeps the ids for the tooltip', () => {
    const all = operationSummary(`Features Analysis: ${FEATURE_IDS.join(',')}`);
    expect(all).toEqual({ label: 'Feature Analysis ({{count}} features)', count: 13, featureIds: [...FEATURE_IDS] });
    expect(operationSummary('Features Analysis: rgb')).toEqual({
      label: 'Feature Analysis (1 feature)',
      count: 1,
      featureIds: ['rgb'],
    });
    expect(operationSummary('Features Analysis: rgb, glcm,')).toMatchObject({ count: 2, featureIds: ['rgb', 'glcm'] });
  });

  it('keeps any other operation type as its name', () => {
    expect(operationSummary('Bruised Area Calculation')).toEqual({ label: 'Bruised Area Calculation' });
    expect(operationSummary('Resize')).toEqual({ label: 'Resize' });
  });
});
