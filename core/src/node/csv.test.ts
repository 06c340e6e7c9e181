import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsv } from './csv.ts';

describe('readCsv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mango-csv-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads one record per row keyed by the header, without the BOM, blank lines or padding', () => {
    const path = join(dir, 'labels.csv');
    writeFileSync(path, '\uFEFFfilename, class ,lesioned\r\na.jpg,healthy, 0\r\n\r\n"b, c.jpg",anthracnose,1\r\n');
    expect(readCsv(path)).toEqual([
      { filename: 'a.jpg', class: 'healthy', lesioned: '0' },
      { filename: 'b, c.jpg', class: 'anthracnose', lesioned: '1' },
    ]);
  });
});
