/**
 * Grades: rules as data (a JSON file validated by `GradeRules`) applied per fruit to bruise
 * results, and the lot summary. Two presets ship beside this file (`codex-mango.json`,
 * `percent.json`); a lab writes its own in the same format (core/README.md, "Grades").
 */
import { z } from 'zod';
import { MangoError } from '../errors.ts';
import type { BruiseFruit, BruiseResultItem } from '../schemas/index.ts';
import codexMango from './codex-mango.json' with { type: 'json' };
import percent from './percent.json' with { type: 'json' };

export const GRADES_SCHEMA = 'mango-bruise-tracker/grades/1';

const Limit = z.number().min(0);

/** A rules file. Grades are listed best first; a fruit gets the first whose limit it keeps within. */
export const GradeRules = z
  .object({
    schema: z.literal(GRADES_SCHEMA),
    id: z.string().min(1).max(64),
    name: z.string().min(1),
    source: z.object({ citation: z.string(), url: z.string().optional(), verified: z.string().optional() }).optional(),
    /** the per-fruit figure the limits apply to: cm² needs a scale (px_per_cm or a reference object) */
    measure: z.enum(['bruise_area_cm2', 'bruise_percent']),
    /** size groups by fruit weight in grams (limits may differ per group) */
    size_groups: z
      .array(z.object({ id: z.string().min(1), min_g: z.number().min(0), max_g: z.number().positive() }))
      .min(1)
      .optional(),
    grades: z
      .array(
        z.object({
          id: z.string().min(1),
          accepted: z.boolean().default(true),
          /** the largest value of `measure` allowed: one number, or one per size group id */
          max: z.union([Limit, z.record(z.string(), Limit)]),
        }),
      )
      .min(1),
    /** the grade of a fruit over every limit (or below the smallest size group): not accepted */
    reject: z.string().min(1).default('Out of grade'),
  })
  .superRefine((rules, ctx) => {
    for (const [i, g] of rules.grades.entries()) {
      if (typeof g.max === 'number') continue;
      const groups = rules.size_groups?.map((s) => s.id) ?? [];
      if (groups.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['grades', i, 'max'], message: 'limits per size group need size_groups' });
      }
      for (const id of groups) {
        if (!(id in g.max)) {
          ctx.addIssue({ code: 'custom', path: ['grades', i, 'max', id], message: `no limit for size group ${id}` });
        }
      }
    }
  });
export type GradeRules = z.output<typeof GradeRules>;

/** The shipped presets, by id. */
export const GRADE_PRESETS: Record<string, GradeRules> = Object.fromEntries(
  [codexMango, percent].map((p) => {
    const rules = GradeRules.parse(p);
    return [rules.id, rules];
  }),
);

/** Does applying these rules need a scale (areas in cm²)? */
export const needsScale = (rules: Pick<GradeRules, 'measure'>) => rules.measure === 'bruise_area_cm2';

/** Why rules in cm² cannot grade photos sent without a scale (the /api-py answer; the web says it of a batch). */
export const scaleNeededMessage = (rules: Pick<GradeRules, 'id'>) =>
  `grades ${rules.id} grades on bruise area in cm² and needs a scale: send reference_mm (a round object in the photo) or px_per_cm`;

/** Rules from a JSON value (a parsed file or request field): typed error with the schema's message. */
export function parseGradeRules(value: unknown, label = 'grade rules'): GradeRules {
  const parsed = GradeRules.safeParse(value);
  if (!parsed.success) throw new MangoError('INVALID_INPUT', `invalid ${label}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** A preset id, or the JSON text of a rules file (the API's `grades` field). */
export function gradeRulesFromText(text: string): GradeRules {
  const name = text.trim();
  if (GRADE_PRESETS[name]) return GRADE_PRESETS[name];
  if (!name.startsWith('{')) {
    throw new MangoError(
      'INVALID_INPUT',
      `unknown grades "${name}": use ${Object.keys(GRADE_PRESETS).join(', ')} or the JSON text of a rules file`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(name);
  } catch {
    throw new MangoError('INVALID_INPUT', 'grades: not valid JSON');
  }
  return parseGradeRules(value);
}

/**
 * Estimated fruit weight (g) from the fruit's projected area A (cm²): 0.63 · A^1.5. An ellipsoid
 * whose thickness follows its width, at about 1.05 g/cm³; the coefficient fits the length, width and
 * weight records of the Alphonso mango phenotyping set (Project-AgML, 211-341 g) within about 3 %.
 * Only an estimate: weigh the fruit (`--weights`) where the size group matters.
 */
export const estimateWeightG = (areaCm2: number) => Math.round(0.63 * areaCm2 ** 1.5);

/** What is added to each fruit of a graded result. */
export interface FruitGrade {
  /** null when the fruit could not be graded (no scale for a cm² rule) */
  grade: string | null;
  grade_accepted: boolean | null;
  size_group?: string | null;
  /** where the weight behind the size group came from */
  size_source?: 'weight' | 'area-estimate' | null;
  weight_g?: number | null;
}

/** One fruit's grade; `weightG` is its weighed mass when known. */
export function gradeFruit(
  fruit: Pick<BruiseFruit, 'bruise_percent' | 'bruise_area_cm2' | 'area_cm2'>,
  rules: GradeRules,
  weightG?: number,
): FruitGrade {
  const value = fruit[rules.measure];
  const ungraded: FruitGrade = { grade: null, grade_accepted: null };
  let group: string | undefined;
  let size: Pick<FruitGrade, 'size_group' | 'size_source' | 'weight_g'> = {};
  if (rules.size_groups) {
    const source = weightG !== undefined ? 'weight' : fruit.area_cm2 !== undefined ? 'area-estimate' : null;
    const weight = weightG ?? (fruit.area_cm2 !== undefined ? estimateWeightG(fruit.area_cm2) : undefined);
    if (weight === undefined) return { ...ungraded, size_group: null, size_source: null, weight_g: null };
    const groups = rules.size_groups;
    // Above the largest group: that group's limits (the standard's largest size); below the smallest: rejected.
    const found =
      groups.find((g) => weight >= g.min_g && weight <= g.max_g) ??
      (weight > groups[groups.length - 1].max_g ? groups[groups.length - 1] : undefined);
    size = { size_group: found?.id ?? null, size_source: source, weight_g: weight };
    if (!found) return { grade: value === undefined ? null : rules.reject, grade_accepted: false, ...size };
    group = found.id;
  }
  if (value === undefined) return { ...ungraded, ...size };
  for (const g of rules.grades) {
    const limit = typeof g.max === 'number' ? g.max : g.max[group!];
    if (value <= limit) return { grade: g.id, grade_accepted: g.accepted, ...size };
  }
  return { grade: rules.reject, grade_accepted: false, ...size };
}

type Graded = Pick<BruiseResultItem, 'filename' | 'fruits'>;

/** Weights by photo file name and 1-based fruit number (`--weights FILE`: image,fruit,weight_g). */
export type FruitWeights = Map<string, number>;
export const weightKey = (image: string, fruit: number) => `${image}\u0000${fruit}`;

/** The result with each fruit graded and the rules' id in `grades`. */
export function gradeResult<T extends Graded>(
  item: T,
  rules: GradeRules,
  weights?: FruitWeights,
): Omit<T, 'fruits'> & { grades: string; fruits: (T['fruits'][number] & FruitGrade)[] } {
  return {
    ...item,
    grades: rules.id,
    fruits: item.fruits.map((f, i) => ({
      ...f,
      ...gradeFruit(f, rules, weights?.get(weightKey(item.filename, i + 1))),
    })),
  };
}

/** Lot summary: fruit per grade (in the rules' order, then the reject), and the share accepted. */
export interface LotSummary {
  grades: string | null;
  fruit_count: number;
  graded: number;
  counts: { grade: string; count: number; accepted: boolean }[];
  accepted: number;
  /** accepted / graded (0..1); null when nothing was graded */
  accepted_share: number | null;
  /** how many graded fruit had their size group from an area estimate rather than a weight */
  size_estimated: number;
}

export function lotSummary(
  items: readonly { grades?: string; fruits?: readonly (Partial<FruitGrade> & object)[] }[],
  rules?: Pick<GradeRules, 'grades' | 'reject'>,
): LotSummary {
  const order = new Map<string, { count: number; accepted: boolean }>();
  for (const g of rules?.grades ?? []) order.set(g.id, { count: 0, accepted: g.accepted });
  if (rules) order.set(rules.reject, { count: 0, accepted: false });
  let fruitCount = 0;
  let graded = 0;
  let accepted = 0;
  let estimated = 0;
  for (const item of items)
    for (const f of item.fruits ?? []) {
      fruitCount++;
      if (!f.grade) continue;
      graded++;
      if (f.grade_accepted) accepted++;
      if (f.size_source === 'area-estimate') estimated++;
      const entry = order.get(f.grade) ?? { count: 0, accepted: Boolean(f.grade_accepted) };
      entry.count++;
      order.set(f.grade, entry);
    }
  return {
    grades: items.find((i) => i.grades)?.grades ?? null,
    fruit_count: fruitCount,
    graded,
    counts: [...order].map(([grade, e]) => ({ grade, count: e.count, accepted: e.accepted })),
    accepted,
    accepted_share: graded > 0 ? Math.round((accepted / graded) * 1e4) / 1e4 : null,
    size_estimated: estimated,
  };
}

/** The lot summary as text lines (the CLI prints it; `--lot FILE` writes it as JSON). */
export function formatLotSummary(lot: LotSummary): string {
  const lines = [`lot (${lot.grades ?? 'no grades'}): ${lot.graded} of ${lot.fruit_count} fruit graded`];
  for (const c of lot.counts)
    lines.push(`  ${c.grade.padEnd(14)} ${String(c.count).padStart(5)}${c.accepted ? '' : '  (not accepted)'}`);
  if (lot.accepted_share !== null) {
    lines.push(`  accepted: ${lot.accepted} (${(lot.accepted_share * 100).toFixed(1)} %)`);
  }
  if (lot.size_estimated > 0)
    lines.push(`  size group estimated from the fruit's area for ${lot.size_estimated} fruit`);
  return lines.join('\n') + '\n';
}
