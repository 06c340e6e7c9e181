"""The AI CUP tray photos through the product, summed up: fruit found per photo and the bruise %.

    node cli/bin/mango.js bruise ../shared/data/bruise-dev/aicup_defect_boxes/images --out aicup.json
    /usr/bin/python3 models/training/analysis/aicup_trays.py aicup.json --out experiments/X.json

No model trains on these photos (the data README calls them test material), so what the shipped model does
on them is a look at photos it never saw: one mango on a tray each, with rails, glare and machinery around.
Figures: how many photos have 1, 2, ... fruit found; the bruise % median / p90 / max over the photos
(linear-interpolation quantiles, as `quantile` of `@mango/core`); and every photo's row.
"""
import argparse
import json

from head_to_head import quantile, write_report


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('results', help='a results.json of mango bruise')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    d = json.load(open(a.results))
    rows = [{'file': p['filename'], 'bruise_percent': p['result']['bruise_percent'],
             'fruits': len(p['result']['fruits'])} for p in d['photos']]
    v = [r['bruise_percent'] for r in rows]
    counts = {}
    for r in rows:
        counts[str(r['fruits'])] = counts.get(str(r['fruits']), 0) + 1
    failed = [i for i in d['provenance'].get('inputs', []) if i.get('error')]
    out = {
        'photos': len(rows),
        'failed': len(failed),
        'method_used': d['provenance'].get('method_used'),
        'app_version': d['provenance'].get('app_version'),
        'model_id': d['provenance'].get('model_id'),
        'model_sha256': d['provenance'].get('model_sha256'),
        'fruits_found': dict(sorted(counts.items())),
        'bruise_percent': {'median': round(quantile(v, 0.5), 2), 'p90': round(quantile(v, 0.9), 2),
                           'max': round(max(v), 2)},
        'per_photo': rows,
    }
    print(f"{len(rows)} photos ({len(failed)} failed); fruits found {out['fruits_found']}; bruise % median / p90 / max "
          f"{out['bruise_percent']['median']} / {out['bruise_percent']['p90']} / {out['bruise_percent']['max']}")
    write_report(a.out, out)


if __name__ == '__main__':
    main()
