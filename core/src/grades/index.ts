/**
 * Grades: rules as data (a JSON file validated by the schema `gradeRulesSchema` makes) applied per
 * object of a result (per fruit), and the lot summary. Which figures rules may grade on, where a
 * result lists its objects and which of them need a scale are the plugin's (issue 24): it declares
 * them as `GradingFields` and makes its grading with `defineGrading(fields, presets)`, which its runs
 * declare (`RunDeclaration.grading`, core/src/runs.ts). This file names no plugin's field. The
 * format is described in core/README.md ("Grades"); the bruise plugin's presets and measures in its
 * README.
 */
import { z } from 'zod';
import { MangoError } from '../errors.ts';

export const GRADES_SCHEMA = 'mango-bruise-tracker/grades/1';

const Limit = z.number().min(0);

/** A figure rules may grade on (RunDeclaration.grading). */
export interface GradeMeasure {
  /** the figure is an area in cm²: grading on it needs a scale */
  scale: boolean;
  /** what it is, in a sentence's words (`bruise area in cm²`): messages say "grades ID grades on WORDS" */
  words: string;
}

/** What a plugin's results are graded by: declared by the plugin. */
export interface GradingFields<K extends string = string> {
  /** the result's key of its list of objects, each graded (`fruits`) */
  objects: K;
  /** the figures of an object a rules file's `measure` may name, by their key, in the order the schema lists them */
  measures: Readonly<Record<string, GradeMeasure>>;
  /** an object's key of its area in cm²: its weight is estimated from it when none is weighed */
  areaCm2?: string;
}

/** The rules schema of a plugin's declared measures. Grades are listed best first; an object gets the first whose limit it keeps within. */
export function gradeRulesSchema(fields: Pick<GradingFields, 'measures'>) {
  const measures = Object.keys(fields.measures);
  if (measures.length === 0) throw new Error('grading declares no measure');
  return z
    .object({
      schema: z.literal(GRADES_SCHEMA),
      id: z.string().min(1).max(64),
      name: z.string().min(1),
      source: z
        .object({ citation: z.string(), url: z.string().optional(), verified: z.string().optional() })
        .optional(),
      /** the per-object figure the limits apply to (one of the declared measures; an area in cm² needs a scale) */
      measure: z.enum(measures as [string, ...string[]]),
      /** size groups by the object's weight in grams (limits may differ per group) */
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
      /** the grade of an object over every limit (or below the smallest size group): not accepted */
      reject: z.string().min(1).default('Out of grade'),
    })
    .superRefine((rules, ctx) => {
      for (const [i, g] of rules.grades.entries()) {
        if (typeof g.max === 'number') continue;
        const groups = rules.size_groups?.map((s) => s.id) ?? [];
        if (groups.length === 0) {
          ctx.addIssue({
            code: 'custom',
            path: ['grades', i, 'max'],
            message: 'limits per size group need size_groups',
          });
        }
        for (const id of groups) {
          if (!(id in g.max)) {
            ctx.addIssue({ code: 'custom', path: ['grades', i, 'max', id], message: `no limit for size group ${id}` });
          }
        }
      }
    });
}
export type GradeRulesSchema = ReturnType<typeof gradeRulesSchema>;
/** A rules file, read. */
export type GradeRules = z.output<GradeRulesSchema>;

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

const numberOr = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** One object's grade under `rules` (its figures by `fields`); `weightG` is its weighed mass when known. */
function gradeObject(
  fields: Pick<GradingFields, 'areaCm2'>,
  object: Readonly<Record<string, unknown>>,
  rules: GradeRules,
  weightG?: number,
): FruitGrade {
  const value = numberOr(object[rules.measure]);
  const area = fields.areaCm2 === undefined ? undefined : numberOr(object[fields.areaCm2]);
  const ungraded: FruitGrade = { grade: null, grade_accepted: null };
  let group: string | undefined;
  let size: Pick<FruitGrade, 'size_group' | 'size_source' | 'weight_g'> = {};
  if (rules.size_groups) {
    const source = weightG !== undefined ? 'weight' : area !== undefined ? 'area-estimate' : null;
    const weight = weightG ?? (area !== undefined ? estimateWeightG(area) : undefined);
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

/** Weights by photo file name and 1-based object number (`--weights FILE`: image,fruit,weight_g). */
export type FruitWeights = Map<string, number>;
export const weightKey = (image: string, fruit: number) => `${image}\u0000${fruit}`;

/** Lot summary: objects per grade (in the rules' order, then the reject), and the share accepted. */
export interface LotSummary {
  grades: string | null;
  fruit_count: number;
  graded: number;
  counts: { grade: string; count: number; accepted: boolean }[];
  accepted: number;
  /** accepted / graded (0..1); null when nothing was graded */
  accepted_share: number | null;
  /** how many graded objects had their size group from an area estimate rather than a weight */
  size_estimated: number;
}

/** The lot summary of each result's rules id (`grades`) and its graded objects. */
function summariseLot(
  items: readonly { grades?: unknown; objects: readonly (Partial<FruitGrade> & object)[] }[],
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
    for (const f of item.objects) {
      fruitCount++;
      if (!f.grade) continue;
      graded++;
      if (f.grade_accepted) accepted++;
      if (f.size_source === 'area-estimate') estimated++;
      const entry = order.get(f.grade) ?? { count: 0, accepted: Boolean(f.grade_accepted) };
      entry.count++;
      order.set(f.grade, entry);
    }
  const named = items.find((i) => typeof i.grades === 'string' && i.grades)?.grades;
  return {
    grades: typeof named === 'string' ? named : null,
    fruit_count: fruitCount,
    graded,
    counts: [...order].map(([grade, e]) => ({ grade, count: e.count, accepted: e.accepted })),
    accepted,
    accepted_share: graded > 0 ? Math.round((accepted / graded) * 1e4) / 1e4 : null,
    size_estimated: estimated,
  };
}

/** A result graded: each object with its grade, and the rules' id in `grades`. */
export type GradedResult<T, K extends keyof T> = Omit<T, K> & { grades: string } & {
  [P in K]: (T[K] extends readonly (infer O)[] ? O & FruitGrade : never)[];
};

/**
 * What front ends need of a plugin's grading without knowing the plugin (RunDeclaration.grading):
 * its rules schema and presets, reading rules, and whether rules need a scale.
 */
export interface DeclaredGrading {
  fields: GradingFields;
  /** the rules schema (a rules file, or the rules object of a run's `grades` option) */
  rules: GradeRulesSchema;
  /** the shipped presets, by id */
  presets: Readonly<Record<string, GradeRules>>;
  /** does applying these rules need a scale (an area in cm²)? */
  needsScale(rules: Pick<GradeRules, 'measure'>): boolean;
  /** why rules on an area in cm² cannot grade photos sent without a scale (the /api-py answer; the web says it of a batch) */
  scaleNeededMessage(rules: Pick<GradeRules, 'id' | 'measure'>): string;
  /** rules from a JSON value (a parsed file or request field): typed error with the schema's message */
  parseGradeRules(value: unknown, label?: string): GradeRules;
  /** a preset id, or the JSON text of a rules file (the API's `grades` field) */
  gradeRulesFromText(text: string): GradeRules;
}

/** A plugin's grading (defineGrading): the declaration and the functions that grade its results. */
export interface Grading<K extends string> extends DeclaredGrading {
  fields: GradingFields<K>;
  /** one object's grade; `weightG` is its weighed mass when known */
  gradeFruit(object: Readonly<Record<string, unknown>>, rules: GradeRules, weightG?: number): FruitGrade;
  /** the result with each of its objects graded (weights by file name and object number) and the rules' id in `grades` */
  gradeResult<T extends { filename: string } & { [P in K]: readonly object[] }>(
    item: T,
    rules: GradeRules,
    weights?: FruitWeights,
  ): GradedResult<T, K>;
  /** the lot summary of graded results: objects per grade (in the rules' order, then the reject), share accepted */
  lotSummary(
    items: readonly ({ grades?: string } & { [P in K]?: readonly (Partial<FruitGrade> & object)[] })[],
    rules?: Pick<GradeRules, 'grades' | 'reject'>,
  ): LotSummary;
}

/**
 * A plugin's grading from its declared fields and its presets (JSON values, validated here: a bad
 * preset fails at load). The plugin declares the result with its runs (RunDeclaration.grading).
 */
export function defineGrading<K extends string>(fields: GradingFields<K>, presets: readonly unknown[]): Grading<K> {
  const schema = gradeRulesSchema(fields);
  const parseGradeRules = (value: unknown, label = 'grade rules'): GradeRules => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new MangoError('INVALID_INPUT', `invalid ${label}: ${z.prettifyError(parsed.error)}`);
    return parsed.data;
  };
  const byId: Record<string, GradeRules> = Object.fromEntries(
    presets.map((p) => {
      const rules = parseGradeRules(p, 'grade preset');
      return [rules.id, rules];
    }),
  );
  const gradeFruit = (object: Readonly<Record<string, unknown>>, rules: GradeRules, weightG?: number) =>
    gradeObject(fields, object, rules, weightG);
  const grading: Grading<K> = {
    fields,
    rules: schema,
    presets: byId,
    needsScale: (rules: Pick<GradeRules, 'measure'>) => fields.measures[rules.measure]?.scale === true,
    scaleNeededMessage: (rules: Pick<GradeRules, 'id' | 'measure'>) =>
      `grades ${rules.id} grades on ${fields.measures[rules.measure]?.words ?? rules.measure} and needs a scale: send reference_mm (a round object in the photo) or px_per_cm`,
    parseGradeRules,
    gradeRulesFromText(text: string): GradeRules {
      const name = text.trim();
      if (byId[name]) return byId[name];
      if (!name.startsWith('{')) {
        throw new MangoError(
          'INVALID_INPUT',
          `unknown grades "${name}": use ${Object.keys(byId).join(', ')} or the JSON text of a rules file`,
        );
      }
      let value: unknown;
      try {
        value = JSON.parse(name);
      } catch {
        throw new MangoError('INVALID_INPUT', 'grades: not valid JSON');
      }
      return parseGradeRules(value);
    },
    gradeFruit,
    gradeResult<T extends { filename: string } & { [P in K]: readonly object[] }>(
      item: T,
      rules: GradeRules,
      weights?: FruitWeights,
    ): GradedResult<T, K> {
      const objects = item[fields.objects] as readonly Readonly<Record<string, unknown>>[];
      return {
        ...item,
        grades: rules.id,
        [fields.objects]: objects.map((f, i) => ({
          ...f,
          ...gradeFruit(f, rules, weights?.get(weightKey(item.filename, i + 1))),
        })),
      } as unknown as GradedResult<T, K>;
    },
    lotSummary: (items, rules) =>
      summariseLot(
        items.map((i) => ({ grades: i.grades, objects: i[fields.objects] ?? [] })),
        rules,
      ),
  };
  return Object.freeze(grading);
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
