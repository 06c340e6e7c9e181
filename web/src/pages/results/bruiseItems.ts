/**
 * The bruise figures of a stored run, as the run and compare pages read them (the generic run client,
 * lib/runs.ts, knows no plugin; these pages name the bruise plugin for its figures and grades).
 */
import { isBruiseFigures, type BruiseFigures } from '@mango/plugin-bruise/results';
import type { RunItem, StoredRun } from '#web/lib/runs.ts';

/** The bruise figures of a run's items (an analysis, another plugin's run and a failed photo have none). */
export function bruiseItems(run: StoredRun): { item: RunItem; figures: BruiseFigures }[] {
  return run.items.flatMap((item) => (isBruiseFigures(item.result) ? [{ item, figures: item.result }] : []));
}
