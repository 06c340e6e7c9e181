import { describe, expect, it } from 'vitest';
import { compileMetaPattern, fileStem, metaFor, metaProvenance, metaSpec } from './meta.ts';
import { parseMetaCsv } from './meta-csv.ts';

/** Columns a plugin's tables write (the bruise plugin's declare more: plugins/bruise/src/tables.ts). */
const TABLE_COLUMNS = ['image', 'fruit_count', 'fruit_pixels', 'bruise_percent'];

const PATTERN = 'cv-{cultivar}_day{day}_trt-{treatment}_fruit{fruit_id}';

describe('metadata pattern', () => {
  it('reads the fields of a file name stem', () => {
    const spec = metaSpec({ pattern: PATTERN }, TABLE_COLUMNS)!;
    expect(metaFor(spec, 'trial/cv-keitt_day03_trt-hotwater_fruit12.jpg')).toEqual({
      meta: { cultivar: 'keitt', day: '03', treatment: 'hotwater', fruit_id: '12' },
      warnings: [],
    });
    // a value may hold the separators the literal text does not pin down
    expect(metaFor(spec, 'cv-nam_dok_mai_day1_trt-none_fruit2.png').meta).toEqual({
      cultivar: 'nam_dok_mai',
      day: '1',
      treatment: 'none',
      fruit_id: '2',
    });
  });

  it('gives empty values and a warning for a name it does not match', () => {
    const spec = metaSpec({ pattern: PATTERN }, TABLE_COLUMNS)!;
    const out = metaFor(spec, 'IMG_0042.jpg');
    expect(out.meta).toEqual({ cultivar: null, day: null, treatment: null, fruit_id: null });
    expect(out.warnings).toEqual([
      `IMG_0042.jpg: the file name does not match the metadata pattern ${PATTERN}; its metadata cells are empty`,
    ]);
  });

  it('takes * as text that is not kept and escapes the rest', () => {
    const p = compileMetaPattern('{plot}.{row}*');
    expect(p.names).toEqual(['plot', 'row']);
    expect(p.regex.exec('A1.7_extra')?.slice(1)).toEqual(['A1', '7']);
    expect(p.regex.test('A1x7')).toBe(false);
  });

  it('refuses a bad pattern with its reason', () => {
    expect(() => compileMetaPattern('')).toThrow(/empty/);
    expect(() => compileMetaPattern('plain')).toThrow(/no field/);
    expect(() => compileMetaPattern('{a}{b}')).toThrow(/need text between/);
    expect(() => compileMetaPattern('{a}_{a}')).toThrow(/appears twice/);
    expect(() => compileMetaPattern('{1x}')).toThrow(/not a field name/);
    expect(() => compileMetaPattern('{a}_{b')).toThrow(/without its pair/);
  });

  it('refuses a name that is a column already, without regard to case', () => {
    expect(() => metaSpec({ pattern: '{image}_{day}' }, TABLE_COLUMNS)).toThrow(
      /metadata name `image` is a column of the results already \(`image`\)/,
    );
    expect(() => metaSpec({ pattern: '{Bruise_Percent}_x' }, TABLE_COLUMNS)).toThrow(/`bruise_percent`/);
    expect(() => metaSpec({ pattern: '{day}_{fruit}' }, ['fruit'])).toThrow(/use `fruit_id`/);
  });

  it('is no spec when neither a pattern nor a CSV is given', () => {
    expect(metaSpec({ pattern: '  ' }, [])).toBeUndefined();
    expect(metaProvenance(undefined)).toBeNull();
  });
});

describe('metadata CSV', () => {
  const CSV = '\ufeffimage,block,weight_g_before\r\nA.jpg,1,310\r\nsub/B.png,2,\r\n"C, copy.jpg",3,295\r\n';

  it('joins on the image column by the name given or its last part; an empty cell is null', () => {
    const spec = metaSpec({ table: parseMetaCsv(CSV), csvSha256: 'abc' }, TABLE_COLUMNS)!;
    expect(metaFor(spec, 'photos/A.jpg')).toEqual({ meta: { block: '1', weight_g_before: '310' }, warnings: [] });
    expect(metaFor(spec, 'sub/B.png').meta).toEqual({ block: '2', weight_g_before: null });
    expect(metaFor(spec, 'C, copy.jpg').meta).toEqual({ block: '3', weight_g_before: '295' });
    const missing = metaFor(spec, 'D.jpg');
    expect(missing.meta).toEqual({ block: null, weight_g_before: null });
    expect(missing.warnings[0]).toMatch(/^D\.jpg: no row of the metadata CSV/);
    expect(metaProvenance(spec)).toEqual({ pattern: null, csv_sha256: 'abc', names: ['block', 'weight_g_before'] });
  });

  it('combines with a pattern: the pattern names first', () => {
    const spec = metaSpec({ pattern: 'plot{plot}', table: parseMetaCsv('image,block\nplot7.jpg,B\n') }, [])!;
    expect(metaFor(spec, 'plot7.jpg').meta).toEqual({ plot: '7', block: 'B' });
    expect(Object.keys(metaFor(spec, 'plot7.jpg').meta)).toEqual(['plot', 'block']);
    expect(() => metaSpec({ pattern: 'plot{block}', table: parseMetaCsv('image,block\nplot7.jpg,B\n') }, [])).toThrow(
      /`block` is given by both/,
    );
  });

  it('refuses a CSV without an image column, with a repeated image or a bad column', () => {
    expect(() => parseMetaCsv('file,block\nA.jpg,1\n')).toThrow(/no `image` column \(its columns: file, block\)/);
    expect(() => parseMetaCsv('image,block\nA.jpg,1\nA.jpg,2\n')).toThrow(/`A.jpg` twice/);
    expect(() => parseMetaCsv('image,2nd\nA.jpg,1\n')).toThrow(/`2nd` is not a name/);
    expect(() => parseMetaCsv('image,block\nA.jpg,1,9\n')).toThrow(/could not be read/);
    expect(() => metaSpec({ table: parseMetaCsv('image,fruit_count\nA.jpg,1\n') }, TABLE_COLUMNS)).toThrow(
      /`fruit_count`/,
    );
  });
});

describe('file names', () => {
  it('finds the stem of a path', () => {
    expect(fileStem('a/b\\c.d.jpg')).toBe('c.d');
    expect(fileStem('.hidden')).toBe('.hidden');
  });
});
