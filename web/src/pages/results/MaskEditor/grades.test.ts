/**
 * The mask editor's live grades: a run graded with a lab's own grade set (its stored options' rules)
 * grades the edited figures with those rules, as a preset run does with its preset.
 */
import { describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { LAB_GRADE_RULES } from '@mango/core/testing';
import { figuresOfMasks } from '@mango/plugin-bruise/corrected';
import { editorGradeRules, liveFruitRows } from './grades.ts';

const LAB = LAB_GRADE_RULES;

const W = 100;
const H = 40;
/** Two fruit of 40 x 30 (1,200 px): 30 lesion pixels on the left (2.5 %), 120 on the right (10 %). */
function editedFigures(lesionLeft = 30) {
  const fruit = new Uint8Array(W * H);
  const bruise = new Uint8Array(W * H);
  for (let y = 5; y < 35; y++)
    for (let x = 0; x < W; x++) {
      if ((x >= 5 && x < 45) || (x >= 55 && x < 95)) fruit[y * W + x] = 1;
      if (x >= 5 && x < 5 + lesionLeft / 30 && fruit[y * W + x]) bruise[y * W + x] = 1;
      if (x >= 55 && x < 59) bruise[y * W + x] = 1;
    }
  return figuresOfMasks({ width: W, height: H, fruit, bruise }, createImage(W, H, [200, 160, 40, 255]), {
    width: W,
    height: H,
  });
}

describe("the mask editor's live grades", () => {
  it("grades with the run's own grade set from its options, live as the lesions change", () => {
    const rules = editorGradeRules({ grades: 'lab-strict' }, { method: 'classical', grades: LAB });
    expect(rules?.id).toBe('lab-strict');
    const figures = editedFigures();
    expect(figures.fruits.map((f) => f.bruise_percent)).toEqual([2.5, 10]);
    const rows = liveFruitRows('a.png', figures.fruits, rules);
    expect(rows.map((f) => [f.grade, f.grade_accepted])).toEqual([
      ['Standard', true],
      ['Juice', false],
    ]);
    // the left lesion erased (2.5 % -> 0 %): Premium at once
    const erased = liveFruitRows('a.png', editedFigures(0).fruits, rules);
    expect(erased.map((f) => f.grade)).toEqual(['Premium', 'Juice']);
  });

  it('grades with a preset named in the options, or (an older run) by the id its result names', () => {
    const figures = editedFigures();
    const byOptions = editorGradeRules({ grades: 'percent' }, { grades: 'percent' });
    expect(liveFruitRows('a.png', figures.fruits, byOptions).map((f) => f.grade)).toEqual(['B', 'C']);
    const byResult = editorGradeRules({ grades: 'percent' }, undefined);
    expect(byResult?.id).toBe('percent');
  });

  it('has no rules for a photo that was not graded, or a custom set the options no longer hold', () => {
    expect(editorGradeRules({}, { grades: LAB })).toBeUndefined();
    expect(editorGradeRules({ grades: 'lab-strict' }, {})).toBeUndefined();
    expect(editorGradeRules({ grades: 'lab-strict' }, { grades: { ...LAB, grades: [] } })).toBeUndefined();
    const figures = editedFigures();
    expect(liveFruitRows('a.png', figures.fruits, undefined)).toBe(figures.fruits);
  });
});
