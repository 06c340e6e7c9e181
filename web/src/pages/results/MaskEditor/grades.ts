/**
 * The mask editor's live grades (issue 28): the rules the run was graded with, a preset or a lab's own
 * grade set (its stored options' `grades`), applied to the figures of the masks being edited.
 */
import { GRADE_PRESETS, gradeResult, type FruitGrade, type GradeRules } from '@mango/plugin-bruise/grades';
import { runGradeRules } from '@mango/plugin-bruise/grade-option';
import { type BruiseFruit } from '@mango/plugin-bruise/results';

/**
 * The rules to grade a photo's live figures with: the run's own (`runOptions.grades`: a preset id or a
 * rules object), else the preset its result names; undefined when the photo was not graded.
 */
export function editorGradeRules(
  result: Record<string, unknown>,
  runOptions?: Record<string, unknown> | null,
): GradeRules | undefined {
  if (typeof result.grades !== 'string') return undefined;
  return runGradeRules(runOptions) ?? GRADE_PRESETS[result.grades];
}

/** The editor's fruit rows: each fruit's figures, graded when there are rules. */
export function liveFruitRows<F extends BruiseFruit>(
  filename: string,
  fruits: F[],
  rules: GradeRules | undefined,
): (F & Partial<FruitGrade>)[] {
  return rules ? gradeResult({ filename, fruits }, rules).fruits : fruits;
}
