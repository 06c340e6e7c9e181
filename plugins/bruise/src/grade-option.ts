/**
 * The `grades` option of a bruise run (core/src/runs.ts): a preset's id (./grades) or the rules
 * themselves (a lab's own grade set), and the rules a stored run was graded with, read back from its
 * options (the mask editor grades its live figures with them). Browser-safe.
 */
import { z } from 'zod';
import { GRADE_PRESETS, GradeRules } from './grades/index.ts';

/** A preset's id (./grades) or the rules themselves. */
export const GradesOption = z
  .union([z.enum(Object.keys(GRADE_PRESETS) as [string, ...string[]]), GradeRules])
  .describe(`grade rules applied to each fruit: ${Object.keys(GRADE_PRESETS).join(' or ')}, or a rules object`);

/** The rules of a run's `grades` option. */
export const gradeRulesOf = (grades: z.output<typeof GradesOption>): GradeRules =>
  typeof grades === 'string' ? GRADE_PRESETS[grades] : grades;

/**
 * The rules a stored run was graded with: its options' `grades` (a preset id or its own rules), or
 * undefined when the run had none (or they are no longer valid rules).
 */
export function runGradeRules(options: Record<string, unknown> | null | undefined): GradeRules | undefined {
  if (options?.grades === undefined || options.grades === null) return undefined;
  const parsed = GradesOption.safeParse(options.grades);
  return parsed.success ? gradeRulesOf(parsed.data) : undefined;
}
