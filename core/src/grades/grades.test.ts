/**
 * core/src/grades knows no plugin (issue 24): it grades the objects and figures a declaration names.
 * Here a made-up kind of result (trays of eggs graded on their crack length) that no plugin has; the
 * bruise plugin's grades and presets are tested beside them (plugins/bruise/src/grades/grades.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { defineGrading, formatLotSummary, GRADES_SCHEMA, gradeRulesSchema, weightKey } from './index.ts';

const EGGS = defineGrading(
  {
    objects: 'eggs',
    measures: {
      crack_mm: { scale: false, words: 'crack length' },
      crack_cm2: { scale: true, words: 'crack area in cm²' },
    },
    areaCm2: 'shell_cm2',
  },
  [
    {
      schema: GRADES_SCHEMA,
      id: 'tray',
      name: 'Tray grades',
      measure: 'crack_mm',
      grades: [
        { id: 'Whole', max: 0 },
        { id: 'Hairline', max: 2 },
      ],
      reject: 'Broken',
    },
  ],
);

describe('grading by a declaration', () => {
  it('reads the declared measures only, and says which need a scale in their own words', () => {
    const tray = EGGS.presets.tray;
    expect(EGGS.needsScale(tray)).toBe(false);
    const area = EGGS.parseGradeRules({ ...tray, id: 'area', measure: 'crack_cm2' });
    expect(EGGS.needsScale(area)).toBe(true);
    expect(EGGS.scaleNeededMessage(area)).toBe(
      'grades area grades on crack area in cm² and needs a scale: send reference_mm (a round object in the photo) or px_per_cm',
    );
    // a figure another plugin grades on is not one of these rules' measures
    expect(() => EGGS.parseGradeRules({ ...tray, measure: 'bruise_percent' })).toThrow(
      /invalid grade rules: .*crack_mm.*crack_cm2/s,
    );
    expect(gradeRulesSchema({ measures: { crack_mm: { scale: false, words: 'x' } } }).safeParse(tray).success).toBe(
      true,
    );
    expect(() => gradeRulesSchema({ measures: {} })).toThrow(/no measure/);
    expect(EGGS.gradeRulesFromText(' tray ')).toBe(tray);
    expect(() => EGGS.gradeRulesFromText('box')).toThrow(/unknown grades "box": use tray or the JSON text/);
    expect(() =>
      defineGrading({ objects: 'eggs', measures: { crack_mm: { scale: false, words: 'x' } } }, [{ id: 'bad' }]),
    ).toThrow(/invalid grade preset/);
  });

  it('grades the declared objects of a result by the measure, sizes them from the declared area, and sums up the lot', () => {
    const item = {
      filename: 'tray-1.jpg',
      eggs: [{ crack_mm: 0 }, { crack_mm: 1.5, shell_cm2: 60 }, { crack_mm: 7 }, { colour: 'brown' }],
    };
    const graded = EGGS.gradeResult(item, EGGS.presets.tray);
    expect(graded.grades).toBe('tray');
    expect(graded.eggs.map((e) => [e.grade, e.grade_accepted])).toEqual([
      ['Whole', true],
      ['Hairline', true],
      ['Broken', false],
      [null, null],
    ]);
    expect(graded.eggs[1]).toMatchObject({ crack_mm: 1.5, shell_cm2: 60 });
    // size groups: a weighed egg by its weight, another from the declared area (0.63 * 60^1.5 = 293 g)
    const sized = EGGS.parseGradeRules({
      ...EGGS.presets.tray,
      size_groups: [
        { id: 'M', min_g: 0, max_g: 100 },
        { id: 'L', min_g: 101, max_g: 400 },
      ],
      grades: [{ id: 'Whole', max: { M: 0, L: 2 } }],
    });
    const bySize = EGGS.gradeResult(item, sized, new Map([[weightKey('tray-1.jpg', 1), 60]]));
    expect(bySize.eggs.map((e) => [e.grade, e.size_group, e.size_source, e.weight_g])).toEqual([
      ['Whole', 'M', 'weight', 60],
      ['Whole', 'L', 'area-estimate', 293],
      [null, null, null, null],
      [null, null, null, null],
    ]);
    const lot = EGGS.lotSummary([graded], EGGS.presets.tray);
    expect(lot).toEqual({
      grades: 'tray',
      fruit_count: 4,
      graded: 3,
      counts: [
        { grade: 'Whole', count: 1, accepted: true },
        { grade: 'Hairline', count: 1, accepted: true },
        { grade: 'Broken', count: 1, accepted: false },
      ],
      accepted: 2,
      accepted_share: 0.6667,
      size_estimated: 0,
    });
    expect(formatLotSummary(lot)).toContain('lot (tray): 3 of 4 fruit graded');
  });
});
