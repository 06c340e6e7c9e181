import { describe, expect, it } from 'vitest';
import { ANALYZE_FIELDS, BRUISE_FIELDS, fieldProperties, readFields } from './fields.ts';

const detail = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return { status: (e as { status?: number }).status, message: (e as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('/api-py form fields', () => {
  it('reads features as one JSON array or a repeated field, in order, without repeats', () => {
    expect(readFields(ANALYZE_FIELDS, { features: ['["rgb","area","rgb"]'] })).toMatchObject({
      features: ['rgb', 'area'],
      isolate: false,
    });
    expect(readFields(ANALYZE_FIELDS, { features: ['glcm', 'rgb'], isolate: ['1'] })).toMatchObject({
      features: ['glcm', 'rgb'],
      isolate: true,
    });
    expect(readFields(ANALYZE_FIELDS, { features: [' ["lbp"]'], isolate: ['true'] }).isolate).toBe(true);
    expect(readFields(ANALYZE_FIELDS, { features: ['["lbp"]'], isolate: ['yes'] }).isolate).toBe(false);
  });

  it('refuses missing, malformed and unknown features with the contract messages (400)', () => {
    expect(detail(() => readFields(ANALYZE_FIELDS, {}))).toEqual({
      status: 400,
      message: 'No features were selected (field `features`, a JSON array of ids)',
    });
    expect(detail(() => readFields(ANALYZE_FIELDS, { features: ['[]'] })).message).toMatch(/^No features/);
    expect(detail(() => readFields(ANALYZE_FIELDS, { features: ['["rgb"'] })).message).toBe(
      '`features` must be a JSON array of feature ids',
    );
    expect(detail(() => readFields(ANALYZE_FIELDS, { features: ['["rgb","shininess",7]'] })).message).toBe(
      'Unknown feature id: shininess, 7',
    );
    // a file sent under the name is not a value
    expect(detail(() => readFields(ANALYZE_FIELDS, { features: [new File(['x'], 'f.txt')] })).message).toMatch(
      /^No features/,
    );
  });

  it('reads px_per_cm through BruiseOptions.pxPerCm: from 0.01 to 100000, or absent', () => {
    expect(readFields(BRUISE_FIELDS, {})).toMatchObject({ px_per_cm: undefined });
    expect(readFields(BRUISE_FIELDS, { px_per_cm: ['37.8', '5'] })).toMatchObject({ px_per_cm: 37.8 });
    expect(readFields(BRUISE_FIELDS, { px_per_cm: ['0.01'] })).toMatchObject({ px_per_cm: 0.01 });
    expect(readFields(BRUISE_FIELDS, { px_per_cm: ['100000'] })).toMatchObject({ px_per_cm: 100000 });
    for (const bad of ['0', '-2', 'abc', '', 'Infinity', '1e-320', '5e-324', '0.0099', '100001', '1e308']) {
      expect(
        detail(() => readFields(BRUISE_FIELDS, { px_per_cm: [bad] })),
        bad,
      ).toEqual({
        status: 400,
        message: '`px_per_cm` must be a number from 0.01 to 100000',
      });
    }
  });

  it('reads reference_mm through BruiseOptions.referenceMm: from 5 to 200 mm, or absent', () => {
    expect(readFields(BRUISE_FIELDS, { reference_mm: ['25'] })).toMatchObject({ reference_mm: 25 });
    for (const bad of ['4.9', '201', 'coin']) {
      expect(detail(() => readFields(BRUISE_FIELDS, { reference_mm: [bad] })).message).toBe(
        '`reference_mm` must be a number from 5 to 200',
      );
    }
  });

  it('describes the same fields for OpenAPI', () => {
    expect(fieldProperties(ANALYZE_FIELDS)).toMatchObject({
      features: { type: 'string', description: expect.stringMatching(/^JSON array of feature ids.*ids: rgb, hsv/) },
      isolate: {
        type: 'string',
        enum: ['true', 'false', '1', '0'],
        description: 'Remove the background before measuring (default false)',
      },
    });
    expect(fieldProperties(BRUISE_FIELDS)).toMatchObject({
      px_per_cm: {
        type: 'string',
        description: 'Optional scale (pixels per centimetre, 0.01 to 100000) to add areas in cm²',
      },
      reference_mm: {
        type: 'string',
        description: expect.stringMatching(/^Optional diameter in mm \(5 to 200\) of a round reference object/),
      },
      grades: {
        type: 'string',
        description: expect.stringMatching(/^Optional grade rules applied to each fruit: codex-mango or percent/),
      },
      strict_quality: {
        type: 'string',
        enum: ['true', 'false', '1', '0'],
        description: expect.stringMatching(/^refuse a photo that fails a photo-quality check \(blur, exposure/),
      },
    });
  });

  it('reads strict_quality through BruiseOptions.strictQuality: true/1, false/0, or absent', () => {
    expect(readFields(BRUISE_FIELDS, { strict_quality: ['true'] }).strict_quality).toBe(true);
    expect(readFields(BRUISE_FIELDS, { strict_quality: ['1'] }).strict_quality).toBe(true);
    expect(readFields(BRUISE_FIELDS, { strict_quality: ['0'] }).strict_quality).toBe(false);
    expect(readFields(BRUISE_FIELDS, {}).strict_quality).toBeUndefined();
    expect(detail(() => readFields(BRUISE_FIELDS, { strict_quality: ['yes'] })).message).toBe(
      '`strict_quality` must be true, false, 1 or 0',
    );
  });
});
