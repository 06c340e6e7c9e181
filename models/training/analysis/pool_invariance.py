"""Pools invariance reports of several models (one per fold) into one figure per variant.

    python3 analysis/pool_invariance.py --out experiments/X.json NAME=inv-f0.json,inv-f1.json [NAME=...]

Each input is an `invariance.ts` report with `per_photo` (each photo's change of bruise % under each
variant). A fold model is run on its own held-out photos only, so pooling the five reports gives an
out-of-fold invariance estimate over all of them. Figures per variant: change median / p90 / max in
points, over the pooled photos; with several names, only the photos every name scored are pooled, so
the models are compared on the same photos.
"""
import argparse
import json

from head_to_head import quantile, write_report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('reports', nargs='+', help='NAME=report.json[,report.json...]')
    a = ap.parse_args()
    pooled = {}
    for arg in a.reports:
        name, files = arg.split('=', 1)
        rows = {}
        describe = {}
        for f in files.split(','):
            d = json.load(open(f))
            if 'per_photo' not in d:
                raise SystemExit(f'{f}: no per_photo (an invariance.ts report from before 2026-11-27 evening)')
            describe.update({k: v['describe'] for k, v in d['variants'].items()})
            for r in d['per_photo']:
                rows[r['file']] = r['change']
        pooled[name] = (rows, describe)
    common = sorted(set.intersection(*(set(rows) for rows, _ in pooled.values())))
    out = {'photos': len(common), 'models': {}}
    for name, (rows, describe) in pooled.items():
        fig = {}
        for k, text in describe.items():
            v = [rows[f][k] for f in common]
            fig[k] = {'describe': text, 'change_median': round(quantile(v, 0.5), 2),
                      'change_p90': round(quantile(v, 0.9), 2), 'change_max': round(max(v), 2)}
        out['models'][name] = fig
    print(f'{len(common)} photos scored by every model; change of bruise % (points), median / p90 / max')
    for k in next(iter(out['models'].values())):
        print(f'  {k:8s} ' + '   '.join(
            f"{n}: {m[k]['change_median']} / {m[k]['change_p90']} / {m[k]['change_max']}" for n, m in out['models'].items()))
    write_report(a.out, out)


if __name__ == '__main__':
    main()
