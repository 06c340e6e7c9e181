"""Trains the fruit-and-lesion segmentation network and exports it to ONNX.

    python3 -m mango_train.train --data ../shared/data/bruise-dev --coco annotations/real-dev.coco.json --out DIR [--fold K --folds N]

Learns from pixel truth only: the real dev photos annotated to ../ANNOTATION.md (COCO) and the
synthetic composites, with synthetic lesions painted on top (render.py), negatives that mark nothing
(marker ink, stickers cut out of the fruit, shading, shadows, highlights, blush, lenticels) and
augmentation (quarter turns, flips, white balance, exposure, gamma, blur, sensor noise, JPEG).
With --fold K the photos of fold K (grouped by source fruit, across all sets) are held out. Seeds are
fixed: the same command gives the same weights on the same machine.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from . import render
from .data import assign_folds, write_folds
from .net import BruiseUNet
from .onnx_init import freeze_batchnorm, load_onnx
from .realdata import list_photos, load, view

MEAN, STD = 0.5, 0.25
SIZES = (256, 288, 320, 352)
INPUT_SIDE = 320

# Size-balanced lesion loss: a lesion smaller than SMALL_LESION of its fruit and the peel ring around
# it weigh SMALL_WEIGHT (missing a small spot must cost something next to the large rots).
SMALL_LESION = 0.005
SMALL_WEIGHT = 4.0
SMALL_RING = 3


def pixel_weight(truth, fruit):
    w = np.ones(fruit.shape, np.float32)
    if not truth.any():
        return w
    from scipy import ndimage

    lab, n = ndimage.label(truth)
    sizes = ndimage.sum(truth, lab, index=np.arange(1, n + 1))
    small = np.isin(lab, 1 + np.nonzero(sizes < SMALL_LESION * max(1, fruit.sum()))[0])
    if small.any():
        w[ndimage.binary_dilation(small, iterations=SMALL_RING)] = SMALL_WEIGHT
    return w


def scene(rng, p, side):
    """A training view before the camera: geometry, painted lesions, the negatives (ink, stickers,
    shading, shadows, highlights, blush, lenticels). Returns rgb in [0, 1], fruit and lesion truth."""
    rgb, fruit, bruise = view(rng, p, side)
    rgb, fruit, bruise = render.geometry(rng, [rgb, fruit, bruise])
    if fruit.sum() >= 400 and rng.random() < 0.45:
        for _ in range(int(rng.choice([1, 1, 2]))):
            r = rng.random()
            painter = (render.paint_bruise if r < 0.45 else render.paint_spots if r < 0.65 else
                       render.paint_streaks if r < 0.75 else render.paint_blotch)
            rgb, t = painter(rng, rgb, fruit)
            bruise = bruise | (t & fruit)
    if fruit.sum() >= 400 and rng.random() < 0.2:
        rgb = render.marker_ink(rng, rgb, fruit)
    if fruit.sum() >= 400 and rng.random() < MACHINERY_SHARE:
        rgb = render.machinery(rng, rgb, fruit)
    if fruit.sum() >= 400 and rng.random() < 0.08:
        rgb, m = render.sticker(rng, rgb, fruit)
        fruit = fruit & ~m
        bruise = bruise & ~m
    if fruit.any():
        for f, prob in ((render.shading, 0.3), (render.cast_shadow, 0.15), (render.highlight, 0.2), (render.blush, 0.2), (render.lenticels, 0.2)):
            if rng.random() < prob:
                rgb = f(rng, rgb, fruit)
    return rgb, fruit, bruise


def camera(rng, rgb, cast_share=None):
    """The camera's part: white balance, exposure, gamma, blur (render.photometric), sensor noise, JPEG.
    Returns the network's input (C x H x W, normalised)."""
    rgb = render.photometric(rng, rgb, cast_share)
    if rng.random() < 0.3:
        rgb = render.sensor_noise(rng, rgb)
    if rng.random() < 0.6:
        rgb = render.jpeg(rng, rgb)
    return ((rgb - MEAN) / STD).transpose(2, 0, 1).astype(np.float32)


def sample(rng, p, side):
    rgb, fruit, bruise = scene(rng, p, side)
    x = camera(rng, rgb)
    return x, fruit.astype(np.float32), bruise.astype(np.float32), pixel_weight(bruise, fruit)


# Consistency pairs (train.py --consistency W): the second camera of a pair draws a black-body cast this
# often (the first draws one with render.CAST_SHARE), so most pairs differ in white balance.
PAIR_CAST_SHARE = 0.9


def sample_pair(rng, p, side):
    """One scene through two independent cameras: the same truth, two inputs."""
    rgb, fruit, bruise = scene(rng, p, side)
    x1, x2 = camera(rng, rgb), camera(rng, rgb, PAIR_CAST_SHARE)
    f, b, w = fruit.astype(np.float32), bruise.astype(np.float32), pixel_weight(bruise, fruit)
    return (x1, f, b, w), (x2, f, b, w)


# Share of the views given tray machinery touching the fruit (render.machinery; train.py --machinery):
# 0 in the shipped recipe.
MACHINERY_SHARE = 0.0

# Share of the views cut from a composite (29 of ~200 photos; their faint painted bruises are the only
# pixel truth of slight bruising, so they are drawn more often than their count).
COMPOSITE_SHARE = 0.3
# Share of the views cut from the corrections given to `mango train bruise` (when there are any): the
# photos a lab corrected are what the new version must learn, beside the repository's own set.
CORRECTION_SHARE = 0.5


class Batches(torch.utils.data.IterableDataset):
    def __init__(self, photos, seed, batch=12, pairs=False):
        self.photos, self.seed, self.batch, self.pairs = photos, seed, batch, pairs

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        comp = [p for p in self.photos if p.set == 'composites']
        corr = [p for p in self.photos if p.set == 'correction']
        real = [p for p in self.photos if p.set == 'senmango'] or corr
        while True:
            side = int(rng.choice(SIZES))
            xs, fs, bs, ws = [], [], [], []
            while len(xs) < self.batch:
                if corr and real is not corr and rng.random() < CORRECTION_SHARE:
                    pool = corr
                else:
                    pool = comp if comp and (not real or rng.random() < COMPOSITE_SHARE) else real
                p = pool[rng.integers(len(pool))]
                # With pairs, the batch holds two cameras of each scene next to each other (0-1, 2-3, ...).
                for x, f, b, w in sample_pair(rng, p, side) if self.pairs else [sample(rng, p, side)]:
                    xs.append(x)
                    fs.append(f)
                    bs.append(b)
                    ws.append(w)
            yield tuple(torch.from_numpy(np.stack(a)) for a in (xs, fs, bs, ws))


def dice(logit, target, within=None):
    p = torch.sigmoid(logit)
    if within is not None:
        p = p * within
    inter = (p * target).sum((1, 2))
    return (1 - (2 * inter + 1) / (p.sum((1, 2)) + target.sum((1, 2)) + 1)).mean()


def loss_fn(logits, fruit, bruise, weight):
    lf, lb = logits[:, 0], logits[:, 1]
    loss_f = F.binary_cross_entropy_with_logits(lf, fruit) + 0.5 * dice(lf, fruit)
    bce_b = (F.binary_cross_entropy_with_logits(lb, bruise, reduction='none') * weight).mean()
    loss_b = 2 * bce_b + 0.5 * dice(lb, bruise, (fruit > 0).float())
    return loss_f + loss_b


def consistency_fn(logits, fruit, teacher=False):
    """Mean squared difference of the fruit and lesion probabilities between the two cameras of each
    scene (batch rows 0-1, 2-3, ...); the lesion's within the fruit truth. With `teacher` the first
    camera's output is a fixed target (no gradient): only the second, cast, view is pulled to it."""
    p = torch.sigmoid(logits)
    a, b = p[0::2], p[1::2]
    if teacher:
        a = a.detach()
    within = (fruit[0::2] > 0).float()
    return ((a[:, 0] - b[:, 0]) ** 2).mean() + (((a[:, 1] - b[:, 1]) ** 2) * within).sum() / within.sum().clamp(min=1.0)


def export_onnx(net, path):
    net.eval()
    x = torch.zeros(1, 3, INPUT_SIDE, INPUT_SIDE)
    torch.onnx.export(net, x, path, input_names=['input'], output_names=['logits'], opset_version=13,
                      dynamic_axes={'input': {0: 'n', 2: 'h', 3: 'w'}, 'logits': {0: 'n', 2: 'h', 3: 'w'}},
                      do_constant_folding=True)
    import onnx

    m = onnx.load(path)
    onnx.checker.check_model(m)
    # Strip the exporter's doc strings (they hold file paths of this machine).
    for node in m.graph.node:
        node.doc_string = ''
    m.producer_version = ''
    onnx.save(m, path)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True, help="the dev split (../shared/data/bruise-dev); '' : the corrections alone")
    ap.add_argument('--coco', required=True, help='the annotated real photos (annotations/real-dev.coco.json)')
    ap.add_argument('--extra', action='append', default=[], metavar='COCO:IMAGES',
                    help='corrections to learn from as well: a COCO file and the folder of its photos (repeatable)')
    ap.add_argument('--exclude', default='', help='a file of photo names and source groups (one a line) to leave out: held-out corrections')
    ap.add_argument('--init-onnx', default='', help='start from this exported model (fine-tuning) instead of random weights')
    ap.add_argument('--out', required=True, help='folder for model.onnx, model.pt and train.json')
    ap.add_argument('--fold', type=int, default=-1, help='hold out this fold (-1: train on everything)')
    ap.add_argument('--folds', type=int, default=5)
    ap.add_argument('--steps', type=int, default=1000)
    ap.add_argument('--batch', type=int, default=12)
    ap.add_argument('--lr', type=float, default=3e-3)
    ap.add_argument('--seed', type=int, default=20261126)
    ap.add_argument('--limit', type=int, default=0, help='use only this many photos (smoke test)')
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--machinery', type=float, default=0.0,
                    help='share of the views given tray machinery touching the fruit (an experiment; 0 in the shipped recipe)')
    ap.add_argument('--canon', choices=['grey', 'exposure'], default=None,
                    help='inside the network (net.Canon): grey-world white balance and exposure, or exposure only')
    ap.add_argument('--consistency', type=float, default=0.0,
                    help='weight of the cast-consistency loss: each scene seen through two cameras (casts, exposure, '
                         'noise, JPEG), their fruit and lesion probabilities pulled together (the batch holds batch/2 scenes)')
    ap.add_argument('--consistency-mode', choices=['symmetric', 'teacher'], default='symmetric',
                    help='symmetric: both views pulled together; teacher: the cast view pulled to the first view (fixed)')
    a = ap.parse_args(argv)
    global MACHINERY_SHARE
    MACHINERY_SHARE = a.machinery

    torch.manual_seed(a.seed)
    np.random.seed(a.seed)
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    extra = [tuple(e.rsplit(':', 1)) for e in a.extra]
    photos = list_photos(a.data or None, a.coco, extra)
    if a.exclude:
        out = {l.strip() for l in open(a.exclude) if l.strip()}
        photos = [p for p in photos if p.filename not in out and p.group not in out]
    if not photos:
        raise SystemExit('train: no photos (neither the dev split nor corrections)')
    assign_folds(photos, a.folds)
    write_folds(photos, os.path.join(a.out, 'folds.csv'))
    train = [p for p in photos if p.fold != a.fold]
    if a.limit:
        train = train[: a.limit // 2] + train[-(a.limit - a.limit // 2):]
    load(train, a.data, a.coco)
    counts = {'annotated_real': sum(p.set == 'senmango' for p in train), 'composites': sum(p.set == 'composites' for p in train)}
    if extra:
        counts['corrections'] = sum(p.set == 'correction' for p in train)
    print(f'train: {len(train)} photos {counts}, held-out fold {a.fold}, loaded in {time.time() - t0:.1f} s', flush=True)

    net = BruiseUNet(canon=a.canon)
    if a.init_onnx:
        load_onnx(net, a.init_onnx)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.15)
    batches = iter(torch.utils.data.DataLoader(Batches(train, a.seed + 1000 * (a.fold + 1), a.batch // 2 * 2 if a.consistency else a.batch, a.consistency > 0), batch_size=None,
                                               num_workers=1, prefetch_factor=4))
    net.train()
    if a.init_onnx:
        freeze_batchnorm(net)
    log = []
    for step in range(1, a.steps + 1):
        x, f, b, w = next(batches)
        logits = net(x)
        loss = loss_fn(logits, f, b, w)
        if a.consistency:
            loss = loss + a.consistency * consistency_fn(logits, f, a.consistency_mode == 'teacher')
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        log.append(float(loss))
        if step % 25 == 0 or step == a.steps:
            print(f'step {step}/{a.steps} loss {np.mean(log[-25:]):.4f} {time.time() - t0:.0f} s', flush=True)
    torch.save(net.state_dict(), os.path.join(a.out, 'model.pt'))
    export_onnx(net, os.path.join(a.out, 'model.onnx'))
    info = {
        'fold': a.fold, 'folds': a.folds, 'steps': a.steps, 'batch': a.batch, 'lr': a.lr, 'seed': a.seed,
        'sizes': SIZES, 'composite_share': COMPOSITE_SHARE, 'cast_share': render.CAST_SHARE,
        'cast_kelvin': render.CAST_KELVIN, 'exposure_ev': render.EXPOSURE_EV, 'input_side': INPUT_SIDE, 'photos': counts, 'seconds': round(time.time() - t0, 1),
        'loss_last_100': float(np.mean(log[-100:])), 'torch': torch.__version__,
        'init': os.path.basename(a.init_onnx) if a.init_onnx else None, 'canon': a.canon, 'consistency': a.consistency or None, 'consistency_mode': a.consistency_mode if a.consistency else None,
        'pair_cast_share': PAIR_CAST_SHARE if a.consistency else None, 'correction_share': CORRECTION_SHARE if extra else None,
        'machinery': a.machinery or None,
    }
    with open(os.path.join(a.out, 'train.json'), 'w') as fh:
        json.dump(info, fh, indent=2)
    print(json.dumps(info), flush=True)


if __name__ == '__main__':
    sys.exit(main())
