import { describe, expect, it } from 'vitest';
import { scoreBoxes, summariseBoxSet } from './boxes.ts';

describe('defect boxes: found, hit and the chance level on control windows', () => {
  // A 100 x 60 photo, fruit everywhere but the right 20 columns; a 20 x 20 lesion box at (10, 10)
  // with 4 marked pixels (1 %), a poor_coloring box at (40, 10), and marks at (72, 45) and (75, 47)
  // in the control window (60, 40)-(80, 60).
  const width = 100;
  const height = 60;
  const fruit = new Uint8Array(width * height);
  const bruise = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < 80; x++) fruit[y * width + x] = 1;
  for (const [x, y] of [
    [15, 15],
    [16, 15],
    [15, 16],
    [16, 16],
    [72, 45],
    [75, 47],
  ])
    bruise[y * width + x] = 1;
  const rows = [
    { class: 'anthracnose', x: 10, y: 10, w: 20, h: 20 },
    { class: 'poor_coloring', x: 40, y: 10, w: 20, h: 20 },
  ];
  const per = scoreBoxes('a.jpg', { width, height, fruit, bruise }, rows, new Set(['anthracnose']));

  it('scores a box by the share of its pixels marked: 1 % is a hit but not found', () => {
    expect(per[0]).toMatchObject({ class: 'anthracnose', bruise_fraction: 0.01, found: false, hit: true });
    // Only lesion boxes get control windows.
    expect(per[1]).toMatchObject({ bruise_fraction: 0, hit: false, control_windows: 0 });
  });

  it('covers every pixel a box at fractional coordinates touches, and refuses a box without numbers', () => {
    // x 14.5-17.5 touches columns 14-17, y 14.5-16.5 rows 14-16: 12 pixels, 4 of them marked.
    const [box] = scoreBoxes(
      'a.jpg',
      { width, height, fruit, bruise },
      [{ class: 'anthracnose', x: 14.5, y: 14.5, w: 3, h: 2 }],
      new Set(),
    );
    expect(box.bruise_fraction).toBeCloseTo(4 / 12, 4);
    expect(() =>
      scoreBoxes(
        'a.jpg',
        { width, height, fruit, bruise },
        [{ class: 'latex', x: 'ten', y: 1, w: 2, h: 2 }],
        new Set(),
      ),
    ).toThrow(/a.jpg: box .* has no numeric x, y, w, h/);
  });

  it('places control windows of the box size on the fruit, away from every labelled box', () => {
    // The 20 x 20 grid: x 0, 20, 40, 60 (the window at 80 is no fruit), y 0, 20, 40. The windows at
    // y 0 and 20 with x < 60 touch a box; kept: (60, 0), (60, 20) and the four at y 40.
    expect(per[0].control_windows).toBe(6);
    expect(per[0].control_hits).toBe(1); // (60,40) holds 2 marked pixels = 0.5 %
    const set = summariseBoxSet(per, new Set(['anthracnose']));
    expect(set).toMatchObject({ boxes: 1, found: 0, hits: 1, hit_share: 1, control_windows: 6 });
    expect(set.control_hit_share).toBeCloseTo(1 / 6, 4);
    expect(set.by_class.poor_coloring).toEqual({ boxes: 1, found: 0, hits: 0 });
  });
});
