/**
 * Stored runs on the client: the /api-node/runs calls of the Results pages, their exports as
 * downloads, and the query string of the list's filters.
 */
import { type RunListItem, type RunPage, type StoredRun, type StoredRunItem } from '@mango/core/results';
import JSZip from 'jszip';
import { apiFetch, apiJson } from '#web/api/client.ts';
import { downloadBlob } from './download.ts';
import { isFailedItem } from '@mango/core';

// The shapes of GET /api-node/runs and /runs/{id}: core's schemas, which the server answers with.
export type { RunPage, StoredRun };
export type RunSummary = RunListItem;
export type RunItem = StoredRunItem;

/** The kinds of run the Results pages filter by (a plugin's declared run operation: core/src/runs.ts). */
export type RunOperation = string;

export interface RunFilters {
  operation: '' | RunOperation;
  from: string;
  to: string;
  q: string;
}

export const NO_FILTERS: RunFilters = { operation: '', from: '', to: '', q: '' };

/** The list's query string: the filters that are set, the page size and the cursor. */
export function runsQuery(filters: RunFilters, cursor: string | null, limit = 20): string {
  const p = new URLSearchParams();
  if (filters.operation) p.set('operation', filters.operation);
  if (filters.from) p.set('from', filters.from);
  if (filters.to) p.set('to', filters.to);
  if (filters.q.trim()) p.set('q', filters.q.trim());
  p.set('limit', String(limit));
  if (cursor) p.set('cursor', cursor);
  return p.toString();
}

export async function fetchRuns(filters: RunFilters, cursor: string | null): Promise<RunPage> {
  const { ok, data } = await apiJson<RunPage & { error?: string }>(`/api-node/runs?${runsQuery(filters, cursor)}`);
  if (!ok) throw new Error(data?.error ?? 'Failed to fetch runs');
  return data;
}

/** The run, or null when there is no such run of the signed-in user's. */
export async function fetchRun(id: string): Promise<StoredRun | null> {
  const { ok, status, data } = await apiJson<StoredRun & { error?: string }>(
    `/api-node/runs/${encodeURIComponent(id)}`,
  );
  if (status === 404) return null;
  if (!ok) throw new Error(data?.error ?? 'Failed to fetch the run');
  return data;
}

/** Where the full-size overlay of photo `position` of run `id` is read (an authenticated call). */
export const overlayUrl = (id: string, position: number) =>
  `/api-node/runs/${encodeURIComponent(id)}/items/${position}/overlay`;

/** A full-size overlay (`overlayUrl`) read with the access token; null when it is gone (the run was deleted). */
export async function fetchOverlay(url: string): Promise<Blob | null> {
  const res = await apiFetch(url);
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`Failed to fetch the overlay (${res.status})`);
  return res.blob();
}

export async function deleteRun(id: string): Promise<void> {
  const res = await apiFetch(`/api-node/runs/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (!res.ok) throw new Error(`Failed to delete the run (${res.status})`);
}

export type ExportFormat = 'csv' | 'images-csv' | 'json' | 'zip' | 'zip-full' | 'html' | 'provenance';

/** `lang` is the HTML report's language (the UI's: `en` or `th`); other formats have none. */
export function exportUrl(id: string, format: ExportFormat, threshold?: number, lang?: string): string {
  const p = new URLSearchParams();
  if (format === 'images-csv') {
    p.set('format', 'csv');
    p.set('table', 'images');
  } else if (format === 'zip-full') {
    // the kept photos scored again: overlays at the photo's size and the masks
    p.set('format', 'zip');
    p.set('resolution', 'full');
  } else p.set('format', format);
  if (format === 'html' && threshold !== undefined) p.set('threshold', String(threshold));
  if (format === 'html' && lang) p.set('lang', lang);
  return `/api-node/runs/${encodeURIComponent(id)}/export?${p}`;
}

/** The reason an export was refused (the server's `error`), or the status. */
async function refusal(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: unknown } | null;
  return typeof body?.error === 'string' ? body.error : `Export failed (${res.status})`;
}

/**
 * The run and its full-resolution export as a zip (bruiseResults.ts buildBruiseZip), or the reason
 * there is none (its photos were not kept: 409; the run is gone: 404).
 */
export async function fetchFullExport(runId: string): Promise<{ run: StoredRun; zip: JSZip } | { refused: string }> {
  const run = await fetchRun(runId);
  if (!run) return { refused: 'Run not found' };
  const res = await apiFetch(exportUrl(runId, 'zip-full'));
  if (!res.ok) return { refused: await refusal(res) };
  return { run, zip: await JSZip.loadAsync(await res.arrayBuffer()) };
}

/** Downloads an export under the name the server gives it (Content-Disposition). */
export async function downloadExport(
  id: string,
  format: ExportFormat,
  threshold?: number,
  lang?: string,
): Promise<void> {
  const res = await apiFetch(exportUrl(id, format, threshold, lang));
  if (!res.ok) throw new Error(format === 'zip-full' ? await refusal(res) : `Export failed (${res.status})`);
  await saveAnswer(res, `run-${id}`);
}

/** Saves an answer's body under the name the server gives it (Content-Disposition), else `fallback`. */
async function saveAnswer(res: Response, fallback: string): Promise<void> {
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallback;
  downloadBlob(await res.blob(), name);
}

// ---- annotations (issue 28: GET/POST /api-node/runs/{id}/annotations) ------------------------------

/** Where a run's corrected masks are exported (COCO) and annotation files imported. */
export const annotationsUrl = (id: string) => `/api-node/runs/${encodeURIComponent(id)}/annotations`;

/** Downloads the COCO file of a run's corrected photos; an error with the server's reason when refused. */
export async function downloadAnnotations(id: string): Promise<void> {
  const res = await apiFetch(`${annotationsUrl(id)}?format=coco`);
  if (!res.ok) throw new Error(await refusal(res));
  await saveAnswer(res, `run-${id}.coco.json`);
}

/** The answer of an import: the run's photos that got a new truth, and the file's entries that did not, with why. */
export interface ImportedAnnotations {
  source: string;
  matched: { filename: string; position: number; version: number }[];
  unmatched: { name: string; reason: string }[];
}

/** A zip (CVAT "Segmentation mask 1.1") by its name or type; anything else is sent as JSON (COCO, Label Studio). */
export const annotationFileType = (file: { name: string; type: string }) =>
  /\.zip$/i.test(file.name) || /zip/i.test(file.type) ? 'application/zip' : 'application/json';

/** Imports an annotation file onto a run's photos; an error with the server's reason when refused. */
export async function importAnnotations(id: string, file: File): Promise<ImportedAnnotations> {
  const res = await apiFetch(annotationsUrl(id), {
    method: 'POST',
    headers: { 'Content-Type': annotationFileType(file) },
    body: file,
  });
  if (!res.ok) throw new Error(await refusal(res));
  return (await res.json()) as ImportedAnnotations;
}

/**
 * The photos of a run that could not be scored (a batch job goes on past them), with their error:
 * an item whose result holds an `error` instead of figures (core/src/runs.ts `isFailedItem`), of any plugin.
 */
export function failedItems(run: StoredRun): { item: RunItem; error: string }[] {
  return run.items.flatMap((item) => (isFailedItem(item.result) ? [{ item, error: String(item.result.error) }] : []));
}
