import { type FeatureResultItem } from '@mango/plugin-features/results';
/**
 * The last Feature Analysis results, kept in session storage so that /analysis/result can be
 * reopened (from /exportfeature's Done, or after a reload) without analysing again.
 */

export const ANALYSIS_SESSION_KEY = 'featureAnalysisResults';

export interface AnalysisState {
  selectedFeatures: string[];
  analysisResults: FeatureResultItem[];
  selectedFiles?: File[];
}

function isResultList(v: unknown): v is FeatureResultItem[] {
  return Array.isArray(v) && v.every((r) => r && typeof r === 'object' && typeof r.image_name === 'string');
}

/** The analysis state carried by a navigation state, or null. */
export function toAnalysisState(value: unknown): AnalysisState | null {
  if (!value || typeof value !== 'object') return null;
  const s = value as Record<string, unknown>;
  if (!Array.isArray(s.selectedFeatures) || !s.selectedFeatures.every((f) => typeof f === 'string')) return null;
  if (!isResultList(s.analysisResults)) return null;
  const files = Array.isArray(s.selectedFiles) ? s.selectedFiles.filter((f) => f instanceof File) : undefined;
  return { selectedFeatures: s.selectedFeatures, analysisResults: s.analysisResults, selectedFiles: files };
}

export function saveAnalysisSession(state: AnalysisState): void {
  try {
    const { selectedFeatures, analysisResults } = state;
    sessionStorage.setItem(ANALYSIS_SESSION_KEY, JSON.stringify({ selectedFeatures, analysisResults }));
  } catch (e) {
    console.error('Could not keep the analysis results', e);
  }
}

export function loadAnalysisSession(): AnalysisState | null {
  try {
    const raw = sessionStorage.getItem(ANALYSIS_SESSION_KEY);
    return raw ? toAnalysisState(JSON.parse(raw)) : null;
  } catch {
    return null;
  }
}
