/**
 * The bruise evaluation (`mango eval bruise`): the evaluation (evaluate.ts), its formatter
 * (format.ts) and the set summaries (metrics.ts). The COCO files are `@mango/plugin-bruise/coco`.
 */
export { evaluateBruise } from './evaluate.ts';
export type {
  BruiseEvaluation,
  EvaluateBruiseOptions,
  BoxSetResult,
  LabelSetResult,
  PixelSetResult,
} from './evaluate.ts';
export { formatBruiseEvaluation } from './format.ts';
export { scorePixelImage, summariseLabelSet, summarisePixelSet } from './metrics.ts';
export { openTruthInput } from './truth-formats.ts';
export { openTruth } from './truth.ts';
export type { PixelTruth, TruthMasks } from './truth-masks.ts';
export { maskToCounts } from '../rle.ts';
