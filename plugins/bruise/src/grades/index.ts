/**
 * The bruise plugin's grading (issue 24: core/src/grades grades whatever a plugin declares): rules
 * grade each fruit (`fruits`) on its bruise area in cm² (needs a scale) or its bruise %, a fruit's
 * weight is estimated from its area in cm² when it was not weighed, and two presets ship beside this
 * file (`codex-mango.json`, `percent.json`; the plugin's README, "Grades"). The run declaration
 * (runs.ts) carries it as `grading`; the CLI, the /api-py routes and the web app grade through it.
 */
import { defineGrading, type GradeRules as Rules, type GradingFields } from '@mango/core/grades';
import codexMango from './codex-mango.json' with { type: 'json' };
import percent from './percent.json' with { type: 'json' };

/** The fields a bruise result is graded by. */
export const BRUISE_GRADE_FIELDS = Object.freeze({
  objects: 'fruits',
  // in the order the rules schema lists them
  measures: {
    bruise_area_cm2: { scale: true, words: 'bruise area in cm²' },
    bruise_percent: { scale: false, words: 'bruise %' },
  },
  areaCm2: 'area_cm2',
} as const) satisfies GradingFields<'fruits'>;

/** Grading of bruise results: the rules schema, the presets and the functions that grade. */
export const bruiseGrading = defineGrading(BRUISE_GRADE_FIELDS, [codexMango, percent]);

/** A rules file of bruise grades (the schema, and the rules it reads). */
export const GradeRules = bruiseGrading.rules;
export type GradeRules = Rules;

/** The shipped presets, by id. */
export const GRADE_PRESETS = bruiseGrading.presets;

export const {
  needsScale,
  scaleNeededMessage,
  parseGradeRules,
  gradeRulesFromText,
  gradeFruit,
  gradeResult,
  lotSummary,
} = bruiseGrading;

export {
  estimateWeightG,
  formatLotSummary,
  weightKey,
  GRADES_SCHEMA,
  type FruitGrade,
  type FruitWeights,
  type LotSummary,
} from '@mango/core/grades';
