/** The printable summary of an evaluation, as `mango eval bruise` prints it. */
import { BOX_HIT_FRACTION } from './boxes.ts';
import type { BruiseEvaluation } from './evaluate.ts';

/** A printable summary table of an evaluation. */
export function formatBruiseEvaluation(ev: BruiseEvaluation): string {
  const lines: string[] = [`bruise evaluation (method ${ev.method}, ${(ev.elapsed_ms / 1000).toFixed(1)} s)`];
  const row = (k: string, v: string) => lines.push(`  ${k.padEnd(48)} ${v}`);
  const f = (v: number | null | undefined, d = 3) =>
    v === null || v === undefined || Number.isNaN(v) ? '-' : v.toFixed(d);
  if (ev.pixel) {
    const p = ev.pixel;
    lines.push(`pixel truth${p.format ? ` (${p.format})` : ''}: ${p.images} images`);
    row('fruit IoU median (min)', `${f(p.fruit_iou_median)} (${f(p.fruit_iou_min)})`);
    row('bruise IoU median (images with bruise)', f(p.bruise_iou_median));
    row(
      '|bruise_percent error| median / p90 / max',
      `${f(p.abs_error_median, 2)} / ${f(p.abs_error_p90, 2)} / ${f(p.abs_error_max, 2)}`,
    );
    row("Lin's concordance", f(p.lin_ccc));
    row(`max bruise_percent on ${p.clean_images} images without bruise`, f(p.clean_max_percent, 2));
    if (p.fruit_count_agreement != null)
      row('fruit count as in the truth (share of images)', f(p.fruit_count_agreement));
    if (p.fruit_instances)
      row(
        'fruit matched one to one (IoU > 0.5): F1',
        `${f(p.fruit_instances.f1)} (${p.fruit_instances.matched} of ${p.fruit_instances.truth} truth, ${p.fruit_instances.found} found)`,
      );
  }
  if (ev.labels) {
    const l = ev.labels;
    lines.push(`image labels: ${l.images} images`);
    row('ROC AUC healthy vs lesioned', f(l.auc));
    for (const [c, v] of Object.entries(l.median_percent_by_class)) row(`median bruise_percent ${c}`, f(v, 2));
  }
  if (ev.boxes) {
    const b = ev.boxes;
    lines.push(`defect boxes: ${b.boxes} lesion boxes`);
    row('found (>= 10% of the box marked bruise)', `${b.found}/${b.boxes} = ${f(b.found_share * 100, 1)}%`);
    row(
      `hit (>= ${BOX_HIT_FRACTION * 100}% marked) / chance on control windows`,
      `${b.hits}/${b.boxes} = ${f(b.hit_share * 100, 1)}% / ${f(b.control_hit_share * 100, 1)}% of ${b.control_windows}`,
    );
    for (const [c, v] of Object.entries(b.by_class))
      row(`  ${c} found / hit`, `${v.found}/${v.boxes} / ${v.hits}/${v.boxes}`);
  }
  return lines.join('\n');
}
