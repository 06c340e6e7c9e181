"""Per-class figures of a kfold.ts report's out-of-fold predictions on the annotated real photos.

    /usr/bin/python3 models/training/analysis/per_class.py models/training/kfold-report.json \
        --labels ../shared/data/bruise-dev/senmango_real_lesions/labels.csv [--out experiments/X.json]

The class of each photo is its SenMango label (labels.csv). Per class: photos, bruise % absolute error
median / p90 / max (points), Lin's CCC, fruit IoU median and minimum, lesion IoU median (over photos whose
truth has a lesion), fruit count right (share). Quantiles are linear, as `quantile` of `@mango/core`.
With `--invariance R,R,..` (invariance.ts reports with `per_photo`, e.g. the five fold models' on their own
held-out photos), also per class and variant: the change of bruise % p90 / max and how many photos move by
more than 1 point.
"""
import argparse
import csv
import statistics as st

import json

from head_to_head import ccc, from_root, quantile, write_report


def figures(rows):
    err = [abs(r['predicted_percent'] - r['truth_percent']) for r in rows]
    fi = [r['fruit_iou'] for r in rows if r.get('fruit_iou') is not None]
    li = [r['bruise_iou'] for r in rows if r.get('bruise_iou') is not None and r['truth_percent'] > 0]
    t = [r['truth_percent'] for r in rows]
    p = [r['predicted_percent'] for r in rows]
    return {
        'photos': len(rows),
        'error_median': round(quantile(err, 0.5), 2),
        'error_p90': round(quantile(err, 0.9), 2),
        'error_max': round(max(err), 2),
        'ccc': round(ccc(t, p), 3) if st.pvariance(t) > 0 else None,
        'fruit_iou_median': round(quantile(fi, 0.5), 3) if fi else None,
        'fruit_iou_min': round(min(fi), 3) if fi else None,
        'lesion_iou_median': round(quantile(li, 0.5), 3) if li else None,
        'fruit_count_right': round(sum(r['fruit_count'] == r['truth_fruit_count'] for r in rows) / len(rows), 3),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('report')
    ap.add_argument('--labels', required=True)
    ap.add_argument('--invariance', help='invariance.ts reports, comma-separated')
    ap.add_argument('--out')
    a = ap.parse_args()
    label = {r['filename']: r['class'] for r in csv.DictReader(open(a.labels))}
    rows = json.load(open(a.report))['per_image_out_of_fold']['annotated_real']
    by = {}
    for r in rows:
        by.setdefault(label[r['filename']], []).append(r)
    out = {'report': from_root(a.report), 'classes': {k: figures(v) for k, v in sorted(by.items())}, 'all': figures(rows)}
    for k, f in list(out['classes'].items()) + [('all', out['all'])]:
        print(f"{k:16s} n {f['photos']:3d}  error {f['error_median']} / {f['error_p90']} / {f['error_max']}  CCC {f['ccc']}  "
              f"fruit IoU {f['fruit_iou_median']} (min {f['fruit_iou_min']})  lesion IoU {f['lesion_iou_median']}  "
              f"count right {f['fruit_count_right']}")
    if a.invariance:
        out['invariance_reports'] = [from_root(f) for f in a.invariance.split(',')]
        changes = {}
        for f in a.invariance.split(','):
            for r in json.load(open(f))['per_photo']:
                changes[r['file']] = r['change']
        inv = {}
        for f, change in changes.items():
            for k, v in change.items():
                inv.setdefault(label[f], {}).setdefault(k, []).append(v)
        out['invariance'] = {c: {k: {'photos': len(v), 'change_p90': round(quantile(v, 0.9), 2), 'change_max': round(max(v), 2),
                                     'over_1_point': sum(x > 1 for x in v)} for k, v in sorted(by_variant.items())}
                             for c, by_variant in sorted(inv.items())}
        for c, by_variant in out['invariance'].items():
            print(f'{c:16s} ' + '  '.join(f"{k} {v['change_p90']}/{v['change_max']} ({v['over_1_point']} > 1)"
                                          for k, v in by_variant.items() if k in ('warm', 'cool', 'ev+0.5', 'ev-0.5')))
    if a.out:
        write_report(a.out, out)


if __name__ == '__main__':
    main()
