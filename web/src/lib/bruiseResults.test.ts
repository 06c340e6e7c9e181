import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import Papa from 'papaparse';
import {
  BRUISE_CSV_COLUMNS,
  bruiseCsv,
  buildBruiseZip,
  decodeDataUrl,
  formatPercent,
  loadUploadedFiles,
  saveUploadedFiles,
  stripOverlays,
  toRows,
  UPLOADED_FILES_KEY,
  type BruiseRow,
} from './bruiseResults.ts';

/** A minimal in-memory Storage. */
function memoryStorage(): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (k) => data.get(k) ?? null,
    key: (i) => [...data.keys()][i] ?? null,
    removeItem: (k) => void data.delete(k),
    setItem: (k, v) => void data.set(k, String(v)),
  };
}

const PNG_1PX =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

const rows: BruiseRow[] = [
  {
    filename: 'a.jpg',
    total_mango_pixels: 1000,
    bruise_percent: 12.3456,
    non_bruise_percent: 87.6544,
    overlay_img: PNG_1PX,
    bruise_pixels: 123,
    severity: null,
    method: 'classical',
    version: '1',
    width: 10,
    height: 10,
    elapsed_ms: 5,
  },
  { filename: 'b.png', total_mango_pixels: 2000, bruise_percent: 0, non_bruise_percent: 100 } as BruiseRow,
];

describe('bruise results', () => {
  it('formats percentages with 2 decimals', () => {
    expect(formatPercent(12.3456)).toBe('12.35');
    expect(formatPercent(0)).toBe('0.00');
    expect(formatPercent(100)).toBe('100.00');
    expect(formatPercent(undefined)).toBe('-');
  });

  it('stores rows without their overlays and reads them back', () => {
    const storage = memoryStorage();
    saveUploadedFiles(rows, storage);
    const raw = storage.getItem(UPLOADED_FILES_KEY)!;
    expect(raw).not.toContain('overlay_img');
    const back = loadUploadedFiles(storage)!;
    expect(back).toHaveLength(2);
    expect(back[0].filename).toBe('a.jpg');
    expect(back[0].bruise_pixels).toBe(123);
    expect(back[0].overlay_img).toBeUndefined();
    // the original rows keep their overlay
    expect(rows[0].overlay_img).toBe(PNG_1PX);
    expect(stripOverlays(rows)[0]).not.toHaveProperty('overlay_img');
  });

  it('ignores missing or malformed storage and rows', () => {
    const storage = memoryStorage();
    expect(loadUploadedFiles(storage)).toBeNull();
    storage.setItem(UPLOADED_FILES_KEY, '{not json');
    expect(loadUploadedFiles(storage)).toBeNull();
    expect(toRows({ results: [] })).toBeNull();
    expect(toRows([{ filename: 'x' }, rows[1]])).toEqual([rows[1]]);
  });

  it('writes data.csv with the spec columns and 2-decimal percentages', () => {
    const parsed = Papa.parse<string[]>(bruiseCsv(rows), { skipEmptyLines: true });
    expect(parsed.data[0]).toEqual(BRUISE_CSV_COLUMNS);
    expect(parsed.data[0]).toEqual(['Filename', 'Total Mango Pixels', 'Bruise Percentage', 'Non-Bruise Percentage']);
    expect(parsed.data[1]).toEqual(['a.jpg', '1000', '12.35', '87.65']);
    expect(parsed.data[2]).toEqual(['b.png', '2000', '0.00', '100.00']);
    // the bytes the page has always downloaded: CRLF between rows, none after the last
    expect(bruiseCsv(rows)).toBe(
      'Filename,Total Mango Pixels,Bruise Percentage,Non-Bruise Percentage\r\na.jpg,1000,12.35,87.65\r\nb.png,2000,0.00,100.00',
    );
    // a name with a comma or a quote stays one field
    const odd = Papa.parse<string[]>(bruiseCsv([{ ...rows[1], filename: 'x, "y".png' }])).data[1];
    expect(odd).toEqual(['x, "y".png', '2000', '0.00', '100.00']);
  });

  it('decodes base64 data URLs', () => {
    const d = decodeDataUrl(PNG_1PX)!;
    expect(d.extension).toBe('png');
    expect([...d.bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(decodeDataUrl('data:image/jpeg;base64,/9j/')!.extension).toBe('jpg');
    expect(decodeDataUrl('not a data url')).toBeNull();
  });

  it('zips data.csv and the overlays of the rows that have one', async () => {
    const zip = await JSZip.loadAsync(await (await buildBruiseZip(rows)).blob.arrayBuffer());
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['data.csv', 'images/', 'images/a.png']);
    const png = await zip.file('images/a.png')!.async('uint8array');
    expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const csv = await zip.file('data.csv')!.async('string');
    expect(csv.split(/\r?\n/)).toHaveLength(3);
  });

  it("reads a batch job's full-size overlays one at a time, by their url, and keeps the url in local storage", async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    const read: string[] = [];
    const fetchOverlay = async (url: string) => {
      read.push(url);
      return url.endsWith('/gone') ? null : new Blob([jpeg], { type: 'image/jpeg' });
    };
    const batch: BruiseRow[] = [
      { ...rows[0], overlay_img: undefined, overlay_url: '/api-node/runs/r/items/0/overlay' },
      { ...rows[0], filename: 'b.jpg', overlay_img: undefined, overlay_url: '/gone' },
    ];
    const zip = await JSZip.loadAsync(await (await buildBruiseZip(batch, fetchOverlay)).blob.arrayBuffer());
    expect(read).toEqual(['/api-node/runs/r/items/0/overlay', '/gone']);
    expect(Object.keys(zip.files).sort()).toEqual(['data.csv', 'images/', 'images/a.jpg']);
    expect(await zip.file('images/a.jpg')!.async('uint8array')).toEqual(jpeg);
    expect(stripOverlays(batch)[0].overlay_url).toBe('/api-node/runs/r/items/0/overlay');
  });

  it('keeps overlay names unique when two photos share a stem', async () => {
    const twins = [rows[0], { ...rows[0], filename: 'a.jpeg' }];
    const zip = await JSZip.loadAsync(await (await buildBruiseZip(twins)).blob.arrayBuffer());
    expect(Object.keys(zip.files).filter((n) => n.startsWith('images/a'))).toEqual(['images/a.png', 'images/a_2.png']);
  });

  it('writes each overlay inside images/, whatever path or control characters its name holds', async () => {
    const hostile = [
      { ...rows[0], filename: '../../etc/passwd.jpg' },
      { ...rows[0], filename: 'C:\\evil\\..\\x\u0000\u202e.png' },
      { ...rows[0], filename: 'มะม่วง.jpg' },
    ];
    const zip = await JSZip.loadAsync(await (await buildBruiseZip(hostile)).blob.arrayBuffer());
    expect(Object.keys(zip.files).sort()).toEqual([
      'data.csv',
      'images/',
      'images/passwd.png',
      'images/x.png',
      'images/มะม่วง.png',
    ]);
  });

  it('names overlays so that Windows can write them, and neutralises formulas in data.csv', async () => {
    const odd = [
      { ...rows[0], filename: "@SUM(1+1)*cmd|'calc'!A0.png" },
      { ...rows[0], filename: 'a<b>:c?.png' },
      { ...rows[0], filename: 'A_B__C_.png' },
      { ...rows[0], filename: 'nul.jpg' },
    ];
    const zip = await JSZip.loadAsync(await (await buildBruiseZip(odd)).blob.arrayBuffer());
    expect(Object.keys(zip.files).filter((n) => n.startsWith('images/'))).toEqual([
      'images/',
      "images/@SUM(1+1)_cmd_'calc'!A0.png",
      'images/a_b__c_.png',
      // the same name as the one before on Windows, whatever the case
      'images/A_B__C__2.png',
      'images/_nul.png',
    ]);
    const csv = Papa.parse<string[]>(await zip.file('data.csv')!.async('string')).data;
    expect(csv[1][0]).toBe("'@SUM(1+1)*cmd|'calc'!A0.png");
    expect(csv[2][0]).toBe('a<b>:c?.png');
  });
});
