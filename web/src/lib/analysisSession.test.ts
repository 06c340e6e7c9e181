import { describe, expect, it } from 'vitest';
import { toAnalysisState } from './analysisSession.ts';

describe('analysis navigation state', () => {
  const analysisResults = [{ image_name: 'a.png', features: { rgb: { mean_R: 1 } } }];

  it('accepts the results page state and keeps only real files', () => {
    const file = new File([new Uint8Array([1])], 'a.png');
    const state = toAnalysisState({ selectedFeatures: ['rgb'], analysisResults, selectedFiles: [file, 'x'] });
    expect(state).toEqual({ selectedFeatures: ['rgb'], analysisResults, selectedFiles: [file] });
  });

  it('refuses states without features or results', () => {
    expect(toAnalysisState(null)).toBeNull();
    expect(toAnalysisState({ analysisResults })).toBeNull();
    expect(toAnalysisState({ selectedFeatures: [1], analysisResults })).toBeNull();
    expect(toAnalysisState({ selectedFeatures: ['rgb'], analysisResults: [{ features: {} }] })).toBeNull();
    expect(toAnalysisState({ selectedFeatures: ['rgb'], analysisResults: { detail: 'x' } })).toBeNull();
  });
});
