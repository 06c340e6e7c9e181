import { describe, expect, it } from 'vitest';
import { csvTable, csvTextCell, toCsv } from './csv.ts';

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

  it('writes booleans as true/false', () => {
    expect(toCsv(['ok'], [[true], [false]])).toBe('ok\ntrue\nfalse\n');
  });

  it('neutralises text a spreadsheet would run as a formula (OWASP); numbers stay numbers', () => {
    const formulas = ['=1+1', "@SUM(1+1)*cmd|'calc'!A0", "+cmd|' -C calc'!A0", '-2+3', '\t=1', '\r=1', '-'];
    expect(
      toCsv(
        ['f'],
        formulas.map((f) => [f]),
      ),
    ).toBe(
      ['f', "'=1+1", "'@SUM(1+1)*cmd|'calc'!A0", "'+cmd|' -C calc'!A0", "'-2+3", "'\t=1", '"\'\r=1"', "'-", ''].join(
        '\n',
      ),
    );
    // numbers, and text that is a plain number (a figure formatted to text), are written as they are
    expect(
      toCsv(
        ['n', 's'],
        [
          [-0.25, '-0.25'],
          [-2.5e-7, '+1.5e3'],
          [0, 'a=b'],
        ],
      ),
    ).toBe('n,s\n-0.25,-0.25\n-2.5e-7,+1.5e3\n0,a=b\n');
  });

  it('csvTextCell prefixes a single quote only where a formula could start', () => {
    expect(csvTextCell('=HYPERLINK("http://x")')).toBe('\'=HYPERLINK("http://x")');
    expect(csvTextCell('@x')).toBe("'@x");
    expect(csvTextCell('mango=1.png')).toBe('mango=1.png');
    expect(csvTextCell('-12.5')).toBe('-12.5');
    expect(csvTextCell('')).toBe('');
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
