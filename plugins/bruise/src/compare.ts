/**
 * Two bruise runs of the same photos side by side (issue 28 item 4: a stored run and its re-scoring
 * with another model): photo by photo each model's bruise % and the difference, and the mean, median
 * and mean absolute difference. The run page (`web`) and `mango rescore` (`cli`) show the same figures.
 * Browser-safe.
 */
import { summaryStats, type StoredRunItem } from '@mango/core/results';

/** What the comparison reads of a run's photo. */
export type ComparedItem = Pick<StoredRunItem, 'filename' | 'sha256' | 'result' | 'model_result'>;

/** The first 8 hex digits of a sha256, as the page names a model file. */
export const shortSha = (sha: string | null | undefined) => (sha ? sha.slice(0, 8) : '–');

export interface ComparedPhoto {
  filename: string;
  /** the bruise % of the first run's model (null: not scored there) */
  first: number | null;
  second: number | null;
  /** second − first, in points */
  difference: number | null;
}

export interface Comparison {
  photos: ComparedPhoto[];
  /** photos scored in both */
  n: number;
  mean_difference: number | null;
  median_difference: number | null;
  mean_absolute_difference: number | null;
}

/** A photo's bruise % as its model gave it (a corrected photo keeps the model's beside the truth). */
function modelPercent(item: ComparedItem): number | null {
  const r = (item.model_result ?? item.result) as { bruise_percent?: unknown };
  return typeof r.bruise_percent === 'number' ? r.bruise_percent : null;
}

/**
 * The photos of two runs of the same photos (a run and its re-scoring), matched by content (sha256)
 * and name, in the first run's order; each with both models' bruise % and the difference, and the
 * mean and median difference over the photos scored in both.
 */
export function compareRuns(
  first: { items: readonly ComparedItem[] },
  second: { items: readonly ComparedItem[] },
): Comparison {
  const key = (i: ComparedItem) => `${i.sha256}/${i.filename}`;
  const others = new Map<string, ComparedItem[]>();
  for (const i of second.items) others.set(key(i), [...(others.get(key(i)) ?? []), i]);
  const photos = first.items.map((i): ComparedPhoto => {
    const match = others.get(key(i))?.shift();
    const a = modelPercent(i);
    const b = match ? modelPercent(match) : null;
    return { filename: i.filename, first: a, second: b, difference: a !== null && b !== null ? b - a : null };
  });
  const differences = photos.flatMap((p) => (p.difference === null ? [] : [p.difference]));
  const stats = summaryStats(differences, 0);
  return {
    photos,
    n: differences.length,
    mean_difference: stats.mean,
    median_difference: stats.median,
    mean_absolute_difference: differences.length
      ? differences.reduce((s, d) => s + Math.abs(d), 0) / differences.length
      : null,
  };
}
