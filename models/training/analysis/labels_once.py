"""Healthy vs lesioned ROC AUC of a kfold.ts report with every labelled photo counted once, out of fold.

    /usr/bin/python3 models/training/analysis/labels_once.py models/training/kfold-report.json \
        --provenance ../shared/data/bruise-dev/senmango_real_lesions/provenance.csv [--out experiments/X.json]

Before 2026-11-29, kfold.ts let every fold model score each labelled SenMango photo that its folds.csv did not
list (the photos outside the recipe's training set), as it does the AI CUP photos, which train no model. Such a
photo then stood five times in the pooled AUC, and a fold model that had trained on its source fruit scored it
too. This script takes the report's per-photo rows (`per_image_out_of_fold.senmango`, fold by fold in order;
a photo listed by every fold marks the fold blocks) and keeps each photo once: a listed photo as it is; an
unlisted one from the fold that held out its source group (the fold of that group's listed photos), else, when
no model trained on its group, from fold sha1(group) mod k (kfold.ts now does the same when it scores).
AUC: the Mann-Whitney statistic of the predicted bruise %, ties counting a half (as `rocAuc` of the plugin).
"""
import argparse
import collections
import csv
import hashlib
import json

from head_to_head import from_root, write_report


def auc(rows):
    pos = [r['predicted_percent'] for r in rows if r['lesioned'] == 1]
    neg = [r['predicted_percent'] for r in rows if r['lesioned'] == 0]
    u = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return round(u / (len(pos) * len(neg)), 4), len(pos), len(neg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('report')
    ap.add_argument('--provenance', required=True)
    ap.add_argument('--out')
    a = ap.parse_args()
    d = json.load(open(a.report))
    rows = d['per_image_out_of_fold']['senmango']
    k = len(d['folds_scored']) if isinstance(d.get('folds_scored'), list) else int(d.get('folds', 5))
    group = {r['filename']: r['source_group'] for r in csv.DictReader(open(a.provenance))}
    times = collections.Counter(r['filename'] for r in rows)
    every = {f for f, n in times.items() if n > 1}
    blocks, open_block = [[]], set()
    for r in rows:
        if r['filename'] in every and r['filename'] in open_block:
            blocks.append([])
            open_block = set()
        if r['filename'] in every:
            open_block.add(r['filename'])
        blocks[-1].append(r)
    if every and len(blocks) != k:
        raise SystemExit(f'{len(blocks)} fold blocks found, {k} folds scored')
    fold_of_group = {group[r['filename']]: f for f, b in enumerate(blocks) for r in b if r['filename'] not in every}
    once, held_group, no_group = [], 0, 0
    for f, b in enumerate(blocks):
        for r in b:
            if r['filename'] not in every:
                once.append(r)
                continue
            g = group[r['filename']]
            fold = fold_of_group.get(g)
            if fold is None:
                fold = int(hashlib.sha1(g.encode()).hexdigest(), 16) % k
            if fold == f:
                once.append(r)
                if g in fold_of_group:
                    held_group += 1
                else:
                    no_group += 1
    as_reported = auc(rows)
    counted_once = auc(once)
    out = {
        'report': from_root(a.report),
        'rows_in_report': len(rows),
        'photos_listed_by_every_fold': len(every),
        'of_those_source_group_trained_by_other_folds': held_group,
        'of_those_source_group_in_no_fold': no_group,
        'auc_as_reported': {'auc': as_reported[0], 'lesioned': as_reported[1], 'healthy': as_reported[2]},
        'auc_each_photo_once': {'auc': counted_once[0], 'lesioned': counted_once[1], 'healthy': counted_once[2]},
    }
    print(json.dumps(out, indent=1))
    if a.out:
        write_report(a.out, out)


if __name__ == '__main__':
    main()
