import { describe, expect, it } from 'vitest';
import {
  GRADE_PRESETS,
  estimateWeightG,
  formatLotSummary,
  gradeFruit,
  gradeResult,
  gradeRulesFromText,
  lotSummary,
  needsScale,
  weightKey,
} from './index.ts';

const codex = GRADE_PRESETS['codex-mango'];
const percent = GRADE_PRESETS.percent;
const fruit = (bruise_area_cm2: number | undefined, area_cm2: number | undefined, bruise_percent = 1) => ({
  bruise_area_cm2,
  area_cm2,
  bruise_percent,
});

describe('grade rules', () => {
  it('ships codex-mango (cm², size groups, needs a scale) and percent (no scale)', () => {
    expect(Object.keys(GRADE_PRESETS).sort()).toEqual(['codex-mango', 'percent']);
    expect(needsScale(codex)).toBe(true);
    expect(needsScale(percent)).toBe(false);
    expect(codex.size_groups?.map((g) => g.id)).toEqual(['A', 'B', 'C']);
    expect(codex.grades.map((g) => [g.id, g.max])).toEqual([
      ['Extra', { A: 0, B: 0, C: 0 }],
      ['Class I', { A: 2, B: 3, C: 4 }],
      ['Class II', { A: 4, B: 5, C: 6 }],
    ]);
    expect(codex.source?.citation).toMatch(/CXS 184-1993/);
    expect(codex.source?.verified).toMatch(/NOT verified/);
  });

  it('applies the Codex limits by size group from weights: boundaries inclusive', () => {
    expect(gradeFruit(fruit(0, 60), codex, 300)).toEqual({
      grade: 'Extra',
      grade_accepted: true,
      size_group: 'A',
      size_source: 'weight',
      weight_g: 300,
    });
    expect(gradeFruit(fruit(2, 60), codex, 300).grade).toBe('Class I');
    expect(gradeFruit(fruit(2.01, 60), codex, 300).grade).toBe('Class II');
    expect(gradeFruit(fruit(2.5, 60), codex, 400)).toMatchObject({ grade: 'Class I', size_group: 'B' });
    expect(gradeFruit(fruit(6, 60), codex, 700)).toMatchObject({ grade: 'Class II', size_group: 'C' });
    expect(gradeFruit(fruit(6.5, 60), codex, 700)).toMatchObject({ grade: 'Out of grade', grade_accepted: false });
    // above the largest group: its limits; under the smallest: not accepted
    expect(gradeFruit(fruit(3.9, 60), codex, 950)).toMatchObject({ grade: 'Class I', size_group: 'C' });
    expect(gradeFruit(fruit(0, 30), codex, 150)).toMatchObject({ grade: 'Out of grade', size_group: null });
  });

  it('estimates the size group from the fruit area when no weight is given, and says so', () => {
    expect(estimateWeightG(57.6)).toBe(275); // an Alphonso of 94 x 78 mm weighs about 276 g
    expect(gradeFruit(fruit(2.5, 80), codex)).toEqual({
      grade: 'Class I',
      grade_accepted: true,
      size_group: 'B',
      size_source: 'area-estimate',
      weight_g: 451,
    });
    // no scale: no cm², no grade
    expect(gradeFruit(fruit(undefined, undefined), codex)).toMatchObject({ grade: null, grade_accepted: null });
  });

  it('grades on bruise % with the percent preset, and a lab file from JSON text; refuses bad rules', () => {
    expect(gradeFruit(fruit(undefined, undefined, 0.4), percent)).toEqual({ grade: 'A', grade_accepted: true });
    expect(gradeFruit(fruit(undefined, undefined, 12), percent)).toEqual({ grade: 'Reject', grade_accepted: false });
    const lab = gradeRulesFromText(
      JSON.stringify({
        schema: 'mango-bruise-tracker/grades/1',
        id: 'lab-7',
        name: 'Our export line',
        measure: 'bruise_area_cm2',
        grades: [
          { id: 'Export', max: 1 },
          { id: 'Local', max: 5 },
          { id: 'Juice', accepted: false, max: 100 },
        ],
      }),
    );
    expect(gradeFruit(fruit(3, 50), lab)).toEqual({ grade: 'Local', grade_accepted: true });
    expect(gradeFruit(fruit(30, 50), lab)).toEqual({ grade: 'Juice', grade_accepted: false });
    expect(gradeFruit(fruit(300, 50), lab)).toEqual({ grade: 'Out of grade', grade_accepted: false });
    expect(gradeRulesFromText(' codex-mango ')).toBe(codex);
    expect(() => gradeRulesFromText('codex')).toThrow(/unknown grades "codex": use codex-mango, percent/);
    expect(() => gradeRulesFromText('{"schema":"mango-bruise-tracker/grades/1"}')).toThrow(/invalid grade rules/);
    expect(() =>
      gradeRulesFromText(
        JSON.stringify({
          ...codex,
          size_groups: [
            { id: 'A', min_g: 0, max_g: 300 },
            { id: 'Z', min_g: 301, max_g: 900 },
          ],
        }),
      ),
    ).toThrow(/no limit for size group Z/);
  });

  it('grades a result per fruit with weights by image and fruit, and sums up the lot', () => {
    const item = {
      filename: 'lot1/a.jpg',
      fruits: [fruit(0, 60), fruit(4.5, 70), fruit(9, 70)].map((f) => ({
        ...f,
        bbox: { x: 0, y: 0, width: 1, height: 1 },
        pixels: 1,
        bruise_pixels: 0,
        lesion_count: 0,
      })),
    };
    const weights = new Map([
      [weightKey('lot1/a.jpg', 1), 320],
      [weightKey('lot1/a.jpg', 2), 500],
    ]);
    const graded = gradeResult(item, codex, weights);
    expect(graded.grades).toBe('codex-mango');
    expect(graded.fruits.map((f) => [f.grade, f.size_group, f.size_source])).toEqual([
      ['Extra', 'A', 'weight'],
      ['Class II', 'B', 'weight'],
      ['Out of grade', 'B', 'area-estimate'],
    ]);
    const lot = lotSummary([graded], codex);
    expect(lot).toEqual({
      grades: 'codex-mango',
      fruit_count: 3,
      graded: 3,
      counts: [
        { grade: 'Extra', count: 1, accepted: true },
        { grade: 'Class I', count: 0, accepted: true },
        { grade: 'Class II', count: 1, accepted: true },
        { grade: 'Out of grade', count: 1, accepted: false },
      ],
      accepted: 2,
      accepted_share: 0.6667,
      size_estimated: 1,
    });
    expect(formatLotSummary(lot)).toContain('accepted: 2 (66.7 %)');
    // without the rules, the counts come from the fruits themselves
    expect(lotSummary([graded]).counts.map((c) => c.grade)).toEqual(['Extra', 'Class II', 'Out of grade']);
  });
});
