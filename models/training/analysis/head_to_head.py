"""Head to head of bruise models on the held-out annotated photos that none of them trained on.

    python3 analysis/head_to_head.py --folds runs-281/full/folds.csv --seen set168.csv \
        --out experiments/X.json NAME=kfold-report.json [NAME=...]

Each report is a kfold.ts report (per_image_out_of_fold.annotated_real). `--folds` gives every
photo's source group and fold; `--seen` is the COCO build's CSV (mango_annotate build --per-class N)
of a model that trained on all folds (the shipped one): photos whose group is in it are left out of
the "unseen" subset. Figures: bruise % absolute error median / p90 / max, Lin's CCC, fruit and lesion
IoU medians, share of photos whose fruit count is right. For the pooled "unseen" photos, a paired
bootstrap (2000 resamples of the photos, seed 1) gives a 95 % interval of each model's difference to the
last-named one in mean absolute error and in CCC: an interval across 0 means the photos cannot tell them
apart.
"""
import argparse
import csv
import json
import os
import random
import subprocess
import statistics as st


def ccc(x, y):
    mx, my = st.mean(x), st.mean(y)
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y)) / len(x)
    return 2 * cov / (st.pvariance(x) + st.pvariance(y) + (mx - my) ** 2)


def quantile(v, p):
    v = sorted(v)
    i = (len(v) - 1) * p
    lo = int(i)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def figures(rows):
    t = [r['truth_percent'] for r in rows]
    y = [r['predicted_percent'] for r in rows]
    e = [abs(a - b) for a, b in zip(t, y)]
    med = lambda k: round(st.median([r[k] for r in rows if r[k] is not None]), 3)
    return {
        'photos': len(rows), 'error_median': round(st.median(e), 2), 'error_p90': round(quantile(e, 0.9), 2),
        'error_max': round(max(e), 2), 'ccc': round(ccc(t, y), 3), 'fruit_iou_median': med('fruit_iou'),
        'lesion_iou_median': med('bruise_iou'),
        'fruit_count_right': round(sum(r['truth_fruit_count'] == r['fruit_count'] for r in rows) / len(rows), 3),
    }


def paired_bootstrap(a_rows, b_rows, n=2000, seed=1):
    """95 % intervals of (a - b) in mean absolute error and in CCC over resamples of the same photos."""
    rng = random.Random(seed)
    k = len(a_rows)
    mae, cc = [], []
    for _ in range(n):
        idx = [rng.randrange(k) for _ in range(k)]
        ra, rb = [a_rows[i] for i in idx], [b_rows[i] for i in idx]
        err = lambda rows: st.mean(abs(r['predicted_percent'] - r['truth_percent']) for r in rows)
        c = lambda rows: ccc([r['truth_percent'] for r in rows], [r['predicted_percent'] for r in rows])
        mae.append(err(ra) - err(rb))
        cc.append(c(ra) - c(rb))
    ci = lambda v: [round(quantile(v, 0.025), 3), round(quantile(v, 0.975), 3)]
    return {'mean_abs_error_difference_95': ci(mae), 'ccc_difference_95': ci(cc)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--folds', required=True)
    ap.add_argument('--seen', required=True)
    ap.add_argument('--out')
    ap.add_argument('reports', nargs='+', metavar='NAME=REPORT')
    a = ap.parse_args()
    group, fold = {}, {}
    for r in csv.DictReader(open(a.folds, newline='')):
        if r['set'] == 'senmango':
            group[r['filename']], fold[r['filename']] = r['group'], int(r['fold'])
    seen = {group[r['file'].split('/')[-1]] for r in csv.DictReader(open(a.seen, newline='')) if not r['skip']}
    reports = {}
    for arg in a.reports:
        name, path = arg.split('=', 1)
        rows = json.load(open(path))['per_image_out_of_fold']['annotated_real']
        reports[name] = {r['filename']: r for r in rows}
    common = sorted(set.intersection(*[set(r) for r in reports.values()]))
    out = {'unseen': {}, 'all_held_out': {}}
    for subset, keep in (('unseen', lambda p: group[p] not in seen), ('all_held_out', lambda p: True)):
        for f in sorted({fold[p] for p in common}) + ['all']:
            photos = [p for p in common if keep(p) and (f == 'all' or fold[p] == f)]
            if not photos:
                continue
            out[subset][f'fold_{f}'] = {n: figures([r[p] for p in photos]) for n, r in reports.items()}
            print(f'{subset}, fold {f}: {len(photos)} photos')
            for n, fig in out[subset][f'fold_{f}'].items():
                print(f'  {n:12s} ' + ' '.join(f'{k} {v}' for k, v in fig.items() if k != 'photos'))
    unseen = [p for p in common if group[p] not in seen]
    names = list(reports)
    if unseen and len(names) > 1:
        ref = names[-1]
        out['unseen_bootstrap_vs_' + ref] = {
            n: paired_bootstrap([reports[n][p] for p in unseen], [reports[ref][p] for p in unseen]) for n in names[:-1]
        }
        print(f'paired bootstrap over {len(unseen)} unseen photos, difference to {ref}:', out['unseen_bootstrap_vs_' + ref])
    if a.out:
        write_report(a.out, out)


def from_root(path):
    """A path as the repository's root sees it (what a report records of its inputs)."""
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
    return os.path.relpath(os.path.abspath(path), root)


def write_report(path, obj):
    """Writes a report as JSON, formatted as the repository's prettier formats it, so `npm run lint`
    stays green after a run (prettier runs from the repository's root: from a subfolder it finds no file)."""
    with open(path, 'w') as fh:
        json.dump(obj, fh, indent=2)
        fh.write('\n')
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))
    subprocess.run(['npx', 'prettier', '--write', os.path.abspath(path)], check=True, capture_output=True, cwd=root)


if __name__ == '__main__':
    main()
