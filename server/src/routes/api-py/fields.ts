/**
 * The text fields of the /api-py multipart forms (product-spec.md section 7), each defined once
 * from the plugin option it sets: the routes read requests through `readField`, and the OpenAPI
 * document lists the same fields through `fieldProperties`. A field's wire form (multipart values
 * are text) is a zod schema; the value it carries is then checked by the plugin's own option schema.
 */
import { z } from 'zod';
import { MangoError, numberLimits, wireName } from '@mango/core';
import type { DeclaredGrading, GradeRules } from '@mango/core/grades';
import { bruise, features } from '@mango/plugins';
import { FEATURE_IDS, FeatureId } from '@mango/plugin-features/names';

export interface FormField<T> {
  /** how the field looks on the wire, with its description (the OpenAPI property) */
  wire: z.ZodType;
  /** the field's text values (the field may repeat) -> the plugin option's value */
  read(values: string[]): T;
}

/** The answer for a field the caller got wrong: 400 {detail}. */
const invalid = (message: string) => new MangoError('INVALID_INPUT', message);

const NO_FEATURES = 'No features were selected (field `features`, a JSON array of ids)';

/** `features`: one JSON array of ids, or the field repeated once per id; FeaturesOptions.features checks them. */
export const featuresField: FormField<z.output<typeof features.options.shape.features>> = {
  wire: z
    .string()
    .meta({ description: `JSON array of feature ids, e.g. ["rgb","glcm"]; ids: ${FEATURE_IDS.join(', ')}` }),
  read(values) {
    if (values.length === 0) throw invalid(NO_FEATURES);
    let ids: unknown;
    try {
      ids = values.length === 1 && values[0].trim().startsWith('[') ? JSON.parse(values[0]) : values;
    } catch {
      throw invalid('`features` must be a JSON array of feature ids');
    }
    const parsed = features.options.shape.features.safeParse(ids);
    if (!parsed.success) {
      const unknown = Array.isArray(ids) ? ids.filter((i) => !FeatureId.safeParse(i).success) : [];
      throw invalid(unknown.length ? `Unknown feature id: ${unknown.map(String).join(', ')}` : NO_FEATURES);
    }
    return [...new Set(parsed.data)];
  },
};

/** A yes/no form field: 'true' or '1' is yes; absent, 'false' or '0' is no. */
const booleanField = (description: string): FormField<boolean> => ({
  // z.literal keeps this order (z.enum would list '0' and '1' first, as object keys)
  wire: z.literal(['true', 'false', '1', '0']).meta({ description }),
  read: (values) => values.some((v) => v === 'true' || v === '1'),
});

/** `isolate`: remove the background first when 'true' or '1'. */
export const isolateField = booleanField('Remove the background before measuring (default false)');

/** `require_scale`: BruiseOptions.requireScale, a photo without a scale is an error. */
export const requireScaleField = booleanField(
  'A photo without a scale (reference_mm given and its reference object not found) is an error (422 with the reason) instead of a result with `scale_status` not-found and a warning (default false)',
);

/** `per_fruit`: also measure each fruit on its own (FeaturesOptions.perFruit). */
export const perFruitField = booleanField(
  "Also measure each fruit on its own at full resolution (default false): the answer's `fruits` has one entry per fruit, numbered as in the bruise per-fruit table, with its bruise figures and its features; px_per_cm or reference_mm add lengths and areas in cm and cm²",
);

/**
 * `keep_going`: a photo that cannot be scored takes its place in the answer as
 * {filename, error, code} and the others are scored, instead of failing the whole call.
 */
export const keepGoingField = booleanField(
  'Carry on past a photo that cannot be scored (empty, not an image, corrupt): its item is {filename, error, code} and the other photos are scored and stored (default false: the first such photo fails the call)',
);

/**
 * A decimal-number field that sets one optional numeric bruise option, checked by that option's
 * schema; the field is named by the option's wire name (`pxPerCm` -> `px_per_cm`).
 */
function bruiseNumberField(
  option: 'pxPerCm' | 'referenceMm',
  what: string,
): { field: FormField<number | undefined>; invalid: string } {
  const schema = bruise.options.shape[option];
  const { min, max } = numberLimits(schema);
  const message = `\`${wireName(option)}\` must be a number from ${min} to ${max}`;
  return {
    invalid: message,
    field: {
      wire: z.string().meta({ description: what.replace('{range}', `${min} to ${max}`) }),
      read(values) {
        if (values.length === 0) return undefined;
        const parsed = schema.safeParse(Number(values[0]));
        if (!parsed.success) throw invalid(message);
        return parsed.data;
      },
    },
  };
}

const pxPerCm = bruiseNumberField('pxPerCm', 'Optional scale (pixels per centimetre, {range}) to add areas in cm²');
export const PX_PER_CM_INVALID = pxPerCm.invalid;
/** `px_per_cm`: a decimal number that BruiseOptions.pxPerCm checks (its range). */
export const pxPerCmField = pxPerCm.field;

const referenceMm = bruiseNumberField(
  'referenceMm',
  'Optional diameter in mm ({range}) of a round reference object (coin, sticker) in the photo: the scale is measured from it (px_per_cm, when given, wins)',
);
export const REFERENCE_MM_INVALID = referenceMm.invalid;
/** `reference_mm`: the diameter of the reference object, checked by BruiseOptions.referenceMm. */
export const referenceMmField = referenceMm.field;

/** A text field that sets one choice option of the bruise plugin, checked by that option's schema. */
function bruiseChoiceField(option: 'colourCard' | 'cardKind'): FormField<string | undefined> {
  const schema = bruise.options.shape[option];
  const choices = schema.unwrap().options as readonly string[];
  return {
    wire: z.enum(choices as [string, ...string[]]).meta({
      description: `${schema.description ?? option} (default ${String(schema.parse(undefined))})`,
    }),
    read(values) {
      if (values.length === 0 || !values[0].trim()) return undefined;
      const parsed = schema.safeParse(values[0].trim());
      if (!parsed.success) throw invalid(`\`${wireName(option)}\` must be one of ${choices.join(', ')}`);
      return parsed.data;
    },
  };
}

/**
 * A yes/no field that sets one boolean bruise option ('true' or '1' sets it; absent: the option's
 * default), named by the option's wire name (`strictQuality` -> `strict_quality`).
 */
function bruiseBooleanField(option: 'strictQuality'): FormField<boolean | undefined> {
  const schema = bruise.options.shape[option];
  return {
    wire: z.literal(['true', 'false', '1', '0']).meta({ description: schema.description }),
    read(values) {
      if (values.length === 0 || values[0] === '') return undefined;
      if (!['true', 'false', '1', '0'].includes(values[0])) {
        throw invalid(`\`${wireName(option)}\` must be true, false, 1 or 0`);
      }
      return values[0] === 'true' || values[0] === '1';
    },
  };
}

/** `colour_card`: auto (correct to a ColorChecker found in the photo) or off. */
export const colourCardField = bruiseChoiceField('colourCard');
/** `card_kind`: classic or passport (the card's size, for the scale). */
export const cardKindField = bruiseChoiceField('cardKind');
/** `strict_quality`: refuse photos that fail a photo-quality check (BruiseOptions.strictQuality). */
export const strictQualityField = bruiseBooleanField('strictQuality');

/** The bruise runs' grading as the plugin declares it (its rules, presets and scale check: core/src/grades). */
export const bruiseGrading: DeclaredGrading = (() => {
  const grading = bruise.runs?.grading;
  if (!grading) throw new Error('the bruise plugin declares no grading');
  return grading;
})();

/** `grades`: a preset id or the JSON text of a rules file (plugins/bruise/README.md, "Grades"). */
export const gradesField: FormField<GradeRules | undefined> = {
  wire: z.string().meta({
    description: `Optional grade rules applied to each fruit: ${Object.keys(bruiseGrading.presets).join(' or ')}, or the JSON text of a rules file; codex-mango needs a scale (reference_mm or px_per_cm)`,
  }),
  read: (values) =>
    values.length === 0 || !values[0].trim() ? undefined : bruiseGrading.gradeRulesFromText(values[0]),
};

/** The text fields of each form, by wire name (in the order OpenAPI lists them, after `images`). */
const SCALE_FIELDS = { [wireName('pxPerCm')]: pxPerCmField, [wireName('referenceMm')]: referenceMmField };
export const ANALYZE_FIELDS = {
  features: featuresField,
  isolate: isolateField,
  [wireName('perFruit')]: perFruitField,
  ...SCALE_FIELDS,
};
export const BRUISE_FIELDS = {
  ...SCALE_FIELDS,
  [wireName('requireScale')]: requireScaleField,
  grades: gradesField,
  keep_going: keepGoingField,
  [wireName('colourCard')]: colourCardField,
  [wireName('cardKind')]: cardKindField,
  [wireName('strictQuality')]: strictQualityField,
};

type Fields = Record<string, FormField<unknown>>;
type FieldValues<F extends Fields> = { [K in keyof F]: F[K] extends FormField<infer T> ? T : never };

/** Each field's value from a multipart form, in order (a field's files are ignored: it is text). */
export function readFields<F extends Fields>(form: F, multipart: Record<string, (string | object)[]>): FieldValues<F> {
  const out: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(form)) {
    out[name] = field.read(multipart[name]?.filter((v): v is string => typeof v === 'string') ?? []);
  }
  return out as FieldValues<F>;
}

/** The OpenAPI properties of a form's fields, by wire name (the JSON Schema of each wire schema). */
export function fieldProperties(form: Fields): Record<string, object> {
  return Object.fromEntries(
    Object.entries(form).map(([name, field]) => {
      const { $schema: _, ...schema } = z.toJSONSchema(field.wire, { io: 'input' }) as Record<string, unknown>;
      return [name, schema];
    }),
  );
}
