import { describe, expect, it } from 'vitest';
import { csvTable, toCsv } from './csv.ts';

describe('toCsv', () => {
  it('writes a header and rows, numbers at full precision, empty for null and undefined', () => {
    expect(
      toCsv(
        ['a', 'b', 'c'],
        [
          [1, 0.1 + 0.2, null],
          ['x', undefined, -2.5e-7],
        ],
      ),
    ).toBe('a,b,c\n1,0.30000000000000004,\nx,,-2.5e-7\n');
  });

  it('quotes fields with a comma, a quote, CR or LF (quotes doubled), whatever the newline', () => {
    const rows = [['a,b', 'say "hi"', 'two\nlines', 'cr\rhere', ' kept ']];
    const expected = ['"a,b"', '"say ""hi"""', '"two\nlines"', '"cr\rhere"', ' kept '].join(',');
    expect(toCsv(['h'], rows)).toBe(`h\n${expected}\n`);
    expect(toCsv(['h'], rows, { newline: '\r\n', finalNewline: false })).toBe(`h\r\n${expected}`);
  });

  it('writes booleans as true/false and leaves formulas as they are', () => {
    expect(
      toCsv(
        ['ok', 'f'],
        [
          [true, '=1+1'],
          [false, '-3'],
        ],
      ),
    ).toBe('ok,f\ntrue,=1+1\nfalse,-3\n');
  });

  it('writes only the header when there are no rows', () => {
    expect(toCsv(['Image', 'mean_R'], [])).toBe('Image,mean_R\n');
    expect(toCsv(['Image'], [], { newline: '\r\n', finalNewline: false })).toBe('Image');
  });
});

describe('csvTable', () => {
  it('takes each column from its [header, field] pair', () => {
    const items = [
      { name: 'a.jpg', pct: 12.345 },
      { name: 'b,c.png', pct: 0 },
    ];
    const csv = csvTable(
      [
        ['Filename', (r) => r.name],
        ['Percent', (r) => r.pct.toFixed(2)],
      ],
      items,
    );
    expect(csv).toBe('Filename,Percent\na.jpg,12.35\n"b,c.png",0.00\n');
  });
});
