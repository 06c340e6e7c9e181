"""python3 -m mango_annotate COMMAND (run from models/training):

  new FILE [--start border|grabcut|none]   write a pass-1 spec skeleton for a photo (FILE relative to the dev split)
  view SPEC|FILE [--zoom x0,y0,x1,y1]...    render grid + overlay (+ zoomed crops) PNGs into --out (default /tmp/annot)
  build [--set S] [--out F]                 every pass-1 spec of a set -> masks -> one COCO file (RLE) + summary CSV
  agree [--set S] [--json F]                IoU between pass 1 and pass 2 (specs with "pass": 2) of the same photos
"""
from __future__ import annotations

import argparse
import hashlib
import csv
import json
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage as ndi

from mango_train.realdata import EVALUATION_GROUP, EVALUATION_SET

from .masks import DATA, HERE, SPECS, build, fruit_instances, load_photo, spec_paths

TRAINING_SET = 'senmango_real_lesions'

CLASSES = {
    'Alternaria': 'alternaria', 'Anthracnose': 'anthracnose', 'Black Mould Rot': 'black-mould-rot',
    'Healthy': 'healthy', 'Stem end Rot': 'stem-end-rot',
}


def spec_path_for(rel: str, pass_: int = 1) -> str:
    set_ = rel.split('/')[0]
    stem = os.path.splitext(os.path.basename(rel))[0]
    suffix = '' if pass_ == 1 else f'.pass{pass_}'
    return os.path.join(SPECS, set_, stem + suffix + '.json')


def _font(size):
    for p in ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf']:
        if os.path.exists(p):
            return ImageFont.truetype(p, size)
    return ImageFont.load_default()


def draw_grid(img: Image.Image, scale: float, step: int, origin=(0, 0)):
    d = ImageDraw.Draw(img)
    f = _font(11)
    W, H = img.size
    ox, oy = origin
    x = (ox // step + 1) * step if ox % step else ox
    while (x - ox) * scale < W:
        X = (x - ox) * scale
        d.line([(X, 0), (X, H)], fill=(255, 255, 0) if x % (step * 4) == 0 else (200, 200, 200), width=1)
        d.text((X + 2, 2), str(x), fill=(255, 255, 0), font=f, stroke_width=2, stroke_fill=(0, 0, 0))
        x += step
    y = (oy // step + 1) * step if oy % step else oy
    while (y - oy) * scale < H:
        Y = (y - oy) * scale
        d.line([(0, Y), (W, Y)], fill=(255, 255, 0) if y % (step * 4) == 0 else (200, 200, 200), width=1)
        d.text((2, Y + 2), str(y), fill=(255, 255, 0), font=f, stroke_width=2, stroke_fill=(0, 0, 0))
        y += step


def overlay(rgb, fruit, lesion, spec=None):
    o = rgb.astype(np.float32).copy()
    if lesion is not None:
        o[lesion] = o[lesion] * 0.5 + np.array([255, 0, 0]) * 0.5
    if fruit is not None:
        edge = fruit & ~ndi.binary_erosion(fruit)
        o[edge] = [0, 255, 255]
    return o.clip(0, 255).astype(np.uint8)


def render(rgb, view_scale, step, origin=(0, 0), spec=None):
    h, w = rgb.shape[:2]
    im = Image.fromarray(rgb).resize((max(1, round(w * view_scale)), max(1, round(h * view_scale))), Image.NEAREST if view_scale >= 1 else Image.LANCZOS)
    if spec is not None:
        d = ImageDraw.Draw(im)
        ox, oy = origin
        for r in spec.get('lesions', []):
            pts = [((x - ox + 0.5) * view_scale, (y - oy + 0.5) * view_scale) for x, y in r['polygon']]
            if len(pts) >= 2:
                d.line(pts + [pts[0]], fill=(255, 255, 0), width=1)
        for line in spec.get('fruit', {}).get('split', []):
            pts = [((x - ox + 0.5) * view_scale, (y - oy + 0.5) * view_scale) for x, y in line]
            d.line(pts, fill=(255, 0, 255), width=1)
    draw_grid(im, view_scale, step, origin)
    return im


def cmd_view(a):
    target = a.target
    spec = None
    if target.endswith('.json'):
        spec = json.load(open(target))
        rel = spec['file']
    else:
        rel = target
        sp = spec_path_for(rel)
        if os.path.exists(sp):
            spec = json.load(open(sp))
    rgb = load_photo(rel)
    h, w = rgb.shape[:2]
    stem = os.path.splitext(os.path.basename(rel))[0]
    out = os.path.join(a.out, stem)
    os.makedirs(out, exist_ok=True)
    long = max(h, w)
    scale = max(1, 900 // long) if long <= 450 else 1024 / long
    step = 16 if long <= 300 else 32 if long <= 800 else 64 if long <= 1700 else 128
    render(rgb, scale, step).save(os.path.join(out, 'grid.png'))
    written = [os.path.join(out, 'grid.png')]
    fruit = lesion = None
    if spec is not None and not spec.get('skip'):
        _, fruit, lesion = build(spec)
        ov = overlay(rgb, fruit, lesion)
        render(ov, scale, step, spec=spec).save(os.path.join(out, 'overlay.png'))
        written.append(os.path.join(out, 'overlay.png'))
        n = len(fruit_instances(fruit))
        print(f"{rel}: {w}x{h}, fruit {int(fruit.sum())} px in {n} piece(s), lesion {int(lesion.sum())} px = {100 * lesion.sum() / max(1, fruit.sum()):.2f} %")
    for k, z in enumerate(a.zoom or []):
        x0, y0, x1, y1 = [int(v) for v in z.split(',')]
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(w, x1), min(h, y1)
        crop = (overlay(rgb, fruit, lesion) if fruit is not None and not a.plain else rgb)[y0:y1, x0:x1]
        zs = max(2, min(8, 800 // max(1, max(x1 - x0, y1 - y0))))
        zstep = 4 if (x1 - x0) <= 64 else 8 if (x1 - x0) <= 160 else 16 if (x1 - x0) <= 400 else 32
        p = os.path.join(out, f'zoom{k}.png')
        render(crop, zs, zstep, origin=(x0, y0), spec=spec if not a.plain else None).save(p)
        written.append(p)
    print('\n'.join(written))


def cmd_new(a):
    rel = a.file
    p = spec_path_for(rel, a.pass_)
    if os.path.exists(p) and not a.force:
        sys.exit(f'{p} exists (--force to overwrite)')
    os.makedirs(os.path.dirname(p), exist_ok=True)
    spec = {
        'file': rel, 'pass': a.pass_, 'annotator': a.annotator,
        'fruit': {'start': a.start, 'start_params': {}, 'add': [], 'remove': [], 'split': []},
        'lesions': [], 'confidence': 'high', 'note': '',
    }
    json.dump(spec, open(p, 'w'), indent=1)
    print(p)


def rle_encode(mask: np.ndarray) -> dict:
    """COCO uncompressed RLE (column-major counts, starting with a run of zeros)."""
    flat = mask.T.reshape(-1).astype(np.uint8)
    change = np.flatnonzero(np.diff(flat)) + 1
    bounds = np.concatenate([[0], change, [flat.size]])
    counts = np.diff(bounds).tolist()
    if flat[0] == 1:
        counts = [0] + counts
    return {'size': [int(mask.shape[0]), int(mask.shape[1])], 'counts': [int(c) for c in counts]}


def bbox(mask):
    ys, xs = np.nonzero(mask)
    return [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]


def provenance():
    groups, labels = {}, {}
    for set_ in ['senmango_real_lesions', 'synthetic_composites']:
        p = os.path.join(DATA, set_, 'provenance.csv')
        if os.path.exists(p):
            for r in csv.DictReader(open(p)):
                groups[f'{set_}/images/{r["filename"]}'] = r['source_group']
    p = os.path.join(DATA, 'senmango_real_lesions', 'labels.csv')
    for r in csv.DictReader(open(p)):
        labels[f'senmango_real_lesions/images/{r["filename"]}'] = r['class']
    return groups, labels


def pick_rank(rel: str) -> tuple:
    """A photo's place in the pick order of its class: classes by name, then sha1 of the file name
    (the order the annotated photos were drawn in: the first 34 per class, then the next 24)."""
    name = os.path.basename(rel)
    return (name.rsplit('_', 1)[0], hashlib.sha1(name.encode()).hexdigest())


def cmd_build(a):
    groups, labels = provenance()
    images, anns, rows = [], [], []
    aid = 1
    # One set per COCO file: the SenMango photos train the model; the AI CUP photos (terms unknown) are
    # evaluation only and are never built into the training file.
    paths = [p for p in spec_paths(SPECS, 1) if json.load(open(p))['file'].split('/')[0] == a.set]
    if a.per_class:
        # Only the first N photos of each class in pick order (skipped ones count: they were drawn).
        ranked = sorted(paths, key=lambda p: pick_rank(json.load(open(p))['file']))
        seen: dict = {}
        keep = set()
        for p in ranked:
            cls = pick_rank(json.load(open(p))['file'])[0]
            seen[cls] = seen.get(cls, 0) + 1
            if seen[cls] <= a.per_class:
                keep.add(p)
        paths = [p for p in paths if p in keep]
    for k, p in enumerate(paths):
        spec = json.load(open(p))
        rel = spec['file']
        if spec.get('skip'):
            rows.append({'file': rel, 'class': labels.get(rel, ''), 'skip': spec['skip']})
            continue
        rgb, fruit, lesion = build(spec)
        h, w = fruit.shape
        iid = k + 1
        starts = spec.get('fruit', {}).get('start', 'none')
        # `started_from` (optional): an outline the annotator traced from a colour threshold of their
        # own before fixing it by hand, recorded as such (the spec itself holds only the polygons).
        started = spec.get('fruit', {}).get('started_from') or (
            'colour segmentation (' + starts + ') + polygons' if starts != 'none' else 'polygons')
        images.append({'id': iid, 'file_name': os.path.basename(rel), 'path': rel, 'width': w, 'height': h,
                       'source_group': groups.get(rel) or (EVALUATION_GROUP + os.path.basename(rel)), 'class': labels.get(rel, ''),
                       'fruit_started_from': started,
                       'lesion_started_from': 'polygons + local colour rule', 'confidence': spec.get('confidence', ''),
                       'annotator': spec.get('annotator', ''), 'note': spec.get('note', '')})
        for inst in fruit_instances(fruit):
            anns.append({'id': aid, 'image_id': iid, 'category_id': 1, 'segmentation': rle_encode(inst), 'area': int(inst.sum()), 'bbox': bbox(inst), 'iscrowd': 0})
            aid += 1
        if lesion.any():
            anns.append({'id': aid, 'image_id': iid, 'category_id': 2, 'segmentation': rle_encode(lesion), 'area': int(lesion.sum()), 'bbox': bbox(lesion), 'iscrowd': 1})
            aid += 1
        rows.append({'file': rel, 'class': labels.get(rel, ''), 'fruits': len(fruit_instances(fruit)), 'fruit_pixels': int(fruit.sum()),
                     'bruise_pixels': int(lesion.sum()), 'bruise_percent': round(100 * lesion.sum() / max(1, fruit.sum()), 4),
                     'confidence': spec.get('confidence', ''), 'skip': ''})
    described = 'real dev-split photos' if a.set == TRAINING_SET else f'real dev-split photos of {a.set} (evaluation only),'
    coco = {'info': {'description': f'Mango Bruise Tracker: {described} annotated to models/training/ANNOTATION.md (masks rebuilt from annotations/specs by python3 -m mango_annotate build)'},
            'categories': [{'id': 1, 'name': 'fruit'}, {'id': 2, 'name': 'bruise'}], 'images': images, 'annotations': anns}
    out = a.out or os.path.join(HERE, '..', 'annotations', 'real-dev.coco.json' if a.set == TRAINING_SET else 'aicup-eval.coco.json')
    with open(out, 'w') as f:
        json.dump(coco, f, separators=(',', ':'))
    with open(os.path.splitext(out)[0].replace('.coco', '') + '.csv', 'w', newline='') as f:
        wr = csv.DictWriter(f, fieldnames=['file', 'class', 'fruits', 'fruit_pixels', 'bruise_pixels', 'bruise_percent', 'confidence', 'skip'])
        wr.writeheader()
        wr.writerows(rows)
    print(f'{len(images)} photos, {len(anns)} annotations -> {out}; {sum(1 for r in rows if r["skip"])} skipped')


def cmd_agree(a):
    res = []
    for p in spec_paths(SPECS, 2):
        s2 = json.load(open(p))
        if s2['file'].split('/')[0] != a.set:
            continue
        p1 = spec_path_for(s2['file'], 1)
        if not os.path.exists(p1):
            continue
        s1 = json.load(open(p1))
        if s1.get('skip') or s2.get('skip'):
            continue
        _, f1, l1 = build(s1)
        _, f2, l2 = build(s2)
        iou = lambda x, y: float((x & y).sum() / max(1, (x | y).sum())) if (x | y).any() else 1.0
        res.append((s2['file'], iou(f1, f2), iou(l1, l2), 100 * l1.sum() / max(1, f1.sum()), 100 * l2.sum() / max(1, f2.sum())))
    for r in res:
        print(f'{r[0]}: fruit IoU {r[1]:.3f}, lesion IoU {r[2]:.3f}, bruise % {r[3]:.2f} vs {r[4]:.2f}')
    if res:
        arr = np.array([[r[1], r[2], abs(r[3] - r[4])] for r in res])
        print(f'{len(res)} photos: fruit IoU median {np.median(arr[:, 0]):.3f} (min {arr[:, 0].min():.3f}); lesion IoU median {np.median(arr[:, 1]):.3f} (min {arr[:, 1].min():.3f}); bruise % difference median {np.median(arr[:, 2]):.2f} max {arr[:, 2].max():.2f} pt')
    if a.json:
        json.dump([{'file': r[0], 'fruit_iou': r[1], 'lesion_iou': r[2], 'bruise_percent_pass1': r[3], 'bruise_percent_pass2': r[4]} for r in res], open(a.json, 'w'), indent=1)


def main():
    ap = argparse.ArgumentParser(prog='mango_annotate')
    sub = ap.add_subparsers(dest='cmd', required=True)
    v = sub.add_parser('view')
    v.add_argument('target')
    v.add_argument('--zoom', action='append')
    v.add_argument('--plain', action='store_true', help='zoom crops without the overlay')
    v.add_argument('--out', default='/tmp/annot')
    n = sub.add_parser('new')
    n.add_argument('file')
    n.add_argument('--start', default='border', choices=['border', 'grabcut', 'none'])
    n.add_argument('--annotator', default='')
    n.add_argument('--force', action='store_true')
    n.add_argument('--pass', dest='pass_', type=int, default=1, help='2 = the blind second pass (<stem>.pass2.json)')
    b = sub.add_parser('build')
    b.add_argument('--out')
    b.add_argument('--set', default=TRAINING_SET, choices=[TRAINING_SET, EVALUATION_SET],
                   help=f'the photos to build: {TRAINING_SET} (annotations/real-dev.coco.json, trains the model) or '
                   f'{EVALUATION_SET} (annotations/aicup-eval.coco.json, evaluation only)')
    b.add_argument('--per-class', type=int, default=0,
                   help='only the first N annotated photos of each class in pick order (sha1 of the name); 0: all')
    g = sub.add_parser('agree')
    g.add_argument('--set', default=TRAINING_SET, choices=[TRAINING_SET, EVALUATION_SET])
    g.add_argument('--json')
    a = ap.parse_args()
    {'view': cmd_view, 'new': cmd_new, 'build': cmd_build, 'agree': cmd_agree}[a.cmd](a)


if __name__ == '__main__':
    main()
