/**
 * Bruised Area Calculation results on the client: the rows of the results table, their copy in
 * local storage (uploadedFiles, without the overlay images: they are too large for it) and the
 * area_calculation_results.zip export. A row of a batch job has no overlay image of its own: it
 * names the full-size overlay kept with its stored run (`overlay_url`), read when it is shown.
 */
import JSZip from 'jszip';
import { exportFileName, exportStems, sanitizeFileName } from '@mango/core';
import { formatPercent, type StoredRun } from '@mango/core/results';
import { BRUISE_FILE_SUFFIXES } from '@mango/plugin-bruise/schema';
import { DOWNLOAD_CSV } from './download.ts';
import { DATA_CSV_COLUMNS, dataCsv, fruitTableCsv, imageTableCsv } from '@mango/plugin-bruise/tables';
import { type BruiseResultItem, isBruiseFigures } from '@mango/plugin-bruise/results';

/** A result row: the API item, whose overlay is absent once restored from local storage. */
export type BruiseRow = Omit<BruiseResultItem, 'overlay_img' | 'fruits'> & {
  overlay_img?: string;
  fruits?: BruiseResultItem['fruits'];
  /** a batch job's row: where its full-size overlay is read (lib/runs.ts overlayUrl; kept in local storage) */
  overlay_url?: string;
};

/** Reads a full-size overlay (lib/runs.ts fetchOverlay); null when it is gone. */
export type OverlayFetcher = (url: string) => Promise<Blob | null>;

export const UPLOADED_FILES_KEY = 'uploadedFiles';
export const BRUISE_ZIP_NAME = 'area_calculation_results.zip';
export const BRUISE_CSV_NAME = 'data.csv';
export const BRUISE_CSV_COLUMNS = DATA_CSV_COLUMNS.map(([header]) => header);

/** Percentages are shown (and exported) with 2 decimals (product-spec.md section 9). */
export { formatPercent };

function isRow(v: unknown): v is BruiseRow {
  if (!v || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.filename === 'string' &&
    typeof r.total_mango_pixels === 'number' &&
    typeof r.bruise_percent === 'number' &&
    typeof r.non_bruise_percent === 'number'
  );
}

/** Keeps the well-formed rows of an unknown value (navigation state or parsed storage). */
export function toRows(value: unknown): BruiseRow[] | null {
  return Array.isArray(value) ? value.filter(isRow) : null;
}

/** The rows without their overlay images, as stored under uploadedFiles. */
export function stripOverlays(rows: readonly BruiseRow[]): BruiseRow[] {
  return rows.map((r) => {
    const copy = { ...r };
    delete copy.overlay_img;
    return copy;
  });
}

export function saveUploadedFiles(rows: readonly BruiseRow[], storage: Storage = localStorage): void {
  try {
    storage.setItem(UPLOADED_FILES_KEY, JSON.stringify(stripOverlays(rows)));
  } catch (e) {
    // A full storage must not break the page: the results are still on screen.
    console.error('Could not store uploadedFiles', e);
  }
}

/** The stored rows, or null when nothing (or nothing readable) is stored. */
export function loadUploadedFiles(storage: Storage = localStorage): BruiseRow[] | null {
  const raw = storage.getItem(UPLOADED_FILES_KEY);
  if (!raw) return null;
  try {
    return toRows(JSON.parse(raw));
  } catch {
    return null;
  }
}

/** data.csv: one line per row, percentages with 2 decimals (the table is @mango/core/results'). */
export function bruiseCsv(rows: readonly BruiseRow[]): string {
  return dataCsv(rows, DOWNLOAD_CSV);
}

/** The file extension of an image's media type (`jpg` for image/jpeg). */
const extensionOf = (mime: string) =>
  mime === 'image/jpeg' ? 'jpg' : mime.startsWith('image/') ? mime.slice(6) : 'bin';

/** Decodes a base64 data URL into its bytes and the file extension of its media type. */
export function decodeDataUrl(dataUrl: string): { bytes: Uint8Array; extension: string } | null {
  const match = /^data:([^;,]+)?(;base64)?,(.*)$/s.exec(dataUrl);
  if (!match) return null;
  const mime = (match[1] ?? 'application/octet-stream').toLowerCase();
  const extension = extensionOf(mime);
  if (!match[2]) return { bytes: new TextEncoder().encode(decodeURIComponent(match[3])), extension };
  const binary = atob(match[3]);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return { bytes, extension };
}

/** A row's overlay as a file: its data URL decoded, or its full-size overlay read (one at a time: they are large). */
async function overlayFile(row: BruiseRow, fetchOverlay?: OverlayFetcher) {
  if (row.overlay_img) return decodeDataUrl(row.overlay_img);
  const blob = row.overlay_url && fetchOverlay ? await fetchOverlay(row.overlay_url) : null;
  return blob ? { bytes: new Uint8Array(await blob.arrayBuffer()), extension: extensionOf(blob.type) } : null;
}

/**
 * A stored run and its full-resolution export (GET /api-node/runs/{id}/export?format=zip&resolution=full),
 * or why there is none (its photos were not kept, the run is gone): lib/runs.ts fetchFullExport.
 */
export type FullExportFetcher = (runId: string) => Promise<{ run: StoredRun; zip: JSZip } | { refused: string }>;

/**
 * Adds the rows' full-resolution files to `zip`: for the photos of each row's stored run that are
 * still rows here, `overlays/<stem>.overlay.jpg`, `masks/<stem>.fruit.png` and `masks/<stem>.bruise.png`
 * (named as `mango bruise --overlays --masks` names them), the per-fruit and per-image tables of
 * those photos (`fruits.csv`, `images.csv`, the stored run's columns) and the run's `provenance.json`.
 * Answers why they could not be added, or null.
 */
async function addFullResolution(
  zip: JSZip,
  rows: readonly BruiseRow[],
  fetchFull: FullExportFetcher,
): Promise<string | null> {
  const runIds = [...new Set(rows.flatMap((r) => (r.run_id ? [r.run_id] : [])))];
  if (runIds.length === 0) return 'These results are not a stored run.';
  const figures: StoredRun['items'][number]['result'][] = [];
  for (const runId of runIds) {
    const full = await fetchFull(runId);
    if ('refused' in full) return full.refused;
    const { run } = full;
    const stems = exportStems(run.items.map((i) => i.filename));
    // Each row of this run is the first item of its name not taken yet.
    const taken = new Set<number>();
    for (const row of rows.filter((r) => r.run_id === runId)) {
      const k = run.items.findIndex((i, n) => !taken.has(n) && i.filename === row.filename);
      if (k >= 0) taken.add(k);
    }
    for (const k of [...taken].sort((a, b) => a - b)) {
      figures.push(run.items[k].result);
      for (const suffix of Object.values(BRUISE_FILE_SUFFIXES)) {
        const name = exportFileName(stems[k], suffix);
        for (const folder of ['overlays', 'masks']) {
          const entry = full.zip.file(`${folder}/${name}`);
          if (entry) zip.file(`${folder}/${name}`, await entry.async('uint8array'), { compression: 'STORE' });
        }
      }
    }
    const provenance = full.zip.file('provenance.json');
    if (provenance)
      zip.file(runIds.length > 1 ? `provenance-${runId}.json` : 'provenance.json', await provenance.async('string'));
  }
  const scored = figures.filter(isBruiseFigures);
  zip.file('fruits.csv', fruitTableCsv(scored));
  zip.file('images.csv', imageTableCsv(scored));
  return null;
}

/**
 * area_calculation_results.zip: data.csv (the spec's four columns) and images/ with each row's
 * overlay as shown, named after the photo (a row restored from local storage has no overlay, so no
 * image, unless a batch job kept it: `fetchOverlay` reads it); with `fetchFull`, also the
 * full-resolution overlays and masks, the per-fruit and per-image tables and the provenance of the
 * rows' stored run (`addFullResolution`). `missing` says why those could not be added.
 */
export async function buildBruiseZip(
  rows: readonly BruiseRow[],
  fetchOverlay?: OverlayFetcher,
  fetchFull?: FullExportFetcher,
): Promise<{ blob: Blob; missing: string | null }> {
  const zip = new JSZip();
  zip.file(BRUISE_CSV_NAME, bruiseCsv(rows));
  const images = zip.folder('images');
  // The server sanitises names it is sent; rows kept from before (local storage) may not be.
  const stems = exportStems(rows.map((r) => sanitizeFileName(r.filename)));
  for (const [k, row] of rows.entries()) {
    if (!images) continue;
    const decoded = await overlayFile(row, fetchOverlay);
    if (decoded) images.file(`${stems[k]}.${decoded.extension}`, decoded.bytes);
  }
  const missing = fetchFull ? await addFullResolution(zip, rows, fetchFull) : null;
  return { blob: await zip.generateAsync({ type: 'blob' }), missing };
}
