"""Trains the bruise segmentation network and exports it to ONNX.

    python3 -m mango_train.train --data ../shared/data/bruise-dev --masks CACHE --out DIR [--fold K --folds N]

With --fold K the photos of fold K (grouped by source fruit, see data.assign_folds) are held out;
without it every dev photo trains the shipped model. Seeds are fixed: the same command gives the
same weights on the same machine (torch's CPU kernels are deterministic in this set-up).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from . import render
from .data import BASE_SIDE, assign_folds, list_photos, load_photo, write_folds
from .net import BruiseUNet

MEAN, STD = 0.5, 0.25
# Training sizes of the fruit square (the product runs at INPUT_SIDE; the others teach scale).
SIZES = (256, 288, 320, 352)
INPUT_SIDE = 320


def sample(rng, p, side):
    """One training example from a photo: (x [4, S, S] float32, target [S, S] float32 or None, fruit)."""
    # Scale and position jitter; now and then the fruit runs off the frame.
    zoom = rng.uniform(0.85, 1.2)
    crop = int(BASE_SIDE / zoom)
    shift = 0.3 if rng.random() < 0.15 else 0.06
    cx = BASE_SIDE / 2 + rng.uniform(-shift, shift) * BASE_SIDE
    cy = BASE_SIDE / 2 + rng.uniform(-shift, shift) * BASE_SIDE
    x0, y0 = int(cx - crop / 2), int(cy - crop / 2)

    def cut(a, mode, resample):
        im = Image.fromarray(a if a.dtype == np.uint8 else (a * 255).astype(np.uint8), mode)
        canvas = Image.new(mode, (crop, crop))
        canvas.paste(im, (-x0, -y0))
        return np.asarray(canvas.resize((side, side), resample))

    rgb = cut(p.rgb, 'RGB', Image.BILINEAR).astype(np.float32) / 255
    fruit = cut(p.fruit.astype(np.uint8) * 255, 'L', Image.BILINEAR) > 127
    truth = None if p.bruise is None else (cut(p.bruise.astype(np.uint8) * 255, 'L', Image.BILINEAR) > 127) & fruit
    if truth is None:
        rgb, fruit = render.geometry(rng, [rgb, fruit])
    else:
        rgb, fruit, truth = render.geometry(rng, [rgb, fruit, truth])
    if fruit.sum() < 200:
        return None
    if truth is not None and rng.random() < 0.7:
        for _ in range(int(rng.choice([1, 1, 2, 3]))):
            r = rng.random()
            painter = (render.paint_bruise if r < 0.5 else render.paint_spots if r < 0.65 else
                       render.paint_streaks if r < 0.75 else render.paint_blotch)
            rgb, t = painter(rng, rgb, fruit)
            truth = truth | t
    for f, prob in ((render.shading, 0.4), (render.cast_shadow, 0.2), (render.highlight, 0.25), (render.blush, 0.3), (render.lenticels, 0.25)):
        if rng.random() < prob * (0.5 if truth is None else 1):
            rgb = f(rng, rgb, fruit)
    rgb = render.photometric(rng, rgb)
    if rng.random() < 0.6:
        rgb = render.jpeg(rng, rgb)
    x = np.concatenate([((rgb - MEAN) / STD).transpose(2, 0, 1), fruit[None].astype(np.float32)], 0)
    return x.astype(np.float32), None if truth is None else truth.astype(np.float32), fruit.astype(np.float32) * pixel_weight(truth, fruit)


# Size-balanced loss: a lesion smaller than SMALL_LESION of its fruit (an anthracnose spot, a latex
# drip) and the peel ring around it weigh SMALL_WEIGHT times a pixel of a large bruise, so that a
# batch's loss does not come almost entirely from the large bruises and missing a small lesion costs
# something. The ring (SMALL_RING px) keeps the weighting symmetric: marking the peel next to a small
# lesion costs as much more as missing the lesion.
SMALL_LESION = 0.005
SMALL_WEIGHT = 4.0
SMALL_RING = 3


def pixel_weight(truth, fruit):
    w = np.ones(fruit.shape, np.float32)
    if truth is None or not truth.any():
        return w
    from scipy import ndimage

    lab, n = ndimage.label(truth)
    sizes = ndimage.sum(truth, lab, index=np.arange(1, n + 1))
    small = np.isin(lab, 1 + np.nonzero(sizes < SMALL_LESION * max(1, fruit.sum()))[0])
    if small.any():
        w[ndimage.binary_dilation(small, iterations=SMALL_RING)] = SMALL_WEIGHT
    return w


class Batches(torch.utils.data.IterableDataset):
    """Endless batches: 9 photos with pixel truth (composites and healthy photos, most with painted
    bruises) and 3 lesioned photos (image label only), all at one size per batch."""

    def __init__(self, photos, seed, batch=12, lesioned_share=0.25):
        self.pixel = [p for p in photos if p.kind in ('pixel', 'healthy')]
        self.lesioned = [p for p in photos if p.kind == 'lesioned']
        self.seed, self.batch, self.nl = seed, batch, int(round(batch * lesioned_share))

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        while True:
            side = int(rng.choice(SIZES))
            xs, ts, fs, kinds = [], [], [], []
            while len(xs) < self.batch:
                les = len(xs) < self.nl and self.lesioned
                p = self.lesioned[rng.integers(len(self.lesioned))] if les else self.pixel[rng.integers(len(self.pixel))]
                s = sample(rng, p, side)
                if s is None:
                    continue
                x, t, f = s
                xs.append(x)
                ts.append(np.zeros_like(f) if t is None else t)
                fs.append(f)
                kinds.append(0 if t is None else 1)
            yield (torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ts)), torch.from_numpy(np.stack(fs)),
                   torch.tensor(kinds))


def loss_fn(logits, target, fruit, kinds):
    """Pixel BCE + soft Dice on the fruit pixels of photos with pixel truth; for lesioned photos
    (image label only) multiple-instance learning: the mean of the top 1 % bruise logits of the fruit
    must say 'bruise'."""
    logits = logits[:, 0]
    loss = logits.new_zeros(())
    px = kinds == 1
    if px.any():
        l, t, wf = logits[px], target[px], fruit[px]
        f = (wf > 0).float()
        bce = (F.binary_cross_entropy_with_logits(l, t, reduction='none') * wf).sum() / f.sum().clamp(min=1)
        p = torch.sigmoid(l) * f
        inter = (p * t).sum((1, 2))
        dice = 1 - (2 * inter + 1) / (p.sum((1, 2)) + t.sum((1, 2)) + 1)
        loss = loss + bce + 0.5 * dice.mean()
    les = kinds == 0
    if les.any():
        l, f = logits[les], (fruit[les] > 0).float()
        vals = []
        for i in range(l.shape[0]):
            v = l[i][f[i] > 0]
            k = max(8, int(0.01 * v.numel()))
            vals.append(torch.topk(v, min(k, v.numel())).values.mean())
        mil = F.binary_cross_entropy_with_logits(torch.stack(vals), torch.ones(len(vals)))
        loss = loss + 0.3 * mil
    return loss


def export_onnx(net, path):
    net.eval()
    x = torch.zeros(1, 4, INPUT_SIDE, INPUT_SIDE)
    torch.onnx.export(net, x, path, input_names=['input'], output_names=['logits'], opset_version=13,
                      dynamic_axes={'input': {0: 'n', 2: 'h', 3: 'w'}, 'logits': {0: 'n', 2: 'h', 3: 'w'}},
                      do_constant_folding=True)
    import onnx

    m = onnx.load(path)
    onnx.checker.check_model(m)
    # Strip the exporter's doc strings (they hold file paths of this machine): the file is then the
    # same wherever it was trained.
    for node in m.graph.node:
        node.doc_string = ''
    m.producer_version = ''
    onnx.save(m, path)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('--data', required=True)
    ap.add_argument('--masks', required=True, help='fruit masks of the product (mango bruise --masks)')
    ap.add_argument('--out', required=True, help='folder for model.onnx, model.pt and train.json')
    ap.add_argument('--fold', type=int, default=-1, help='hold out this fold (-1: train on everything)')
    ap.add_argument('--folds', type=int, default=5)
    ap.add_argument('--steps', type=int, default=700)
    ap.add_argument('--batch', type=int, default=12)
    ap.add_argument('--lr', type=float, default=3e-3)
    ap.add_argument('--seed', type=int, default=20261124)
    ap.add_argument('--limit', type=int, default=0, help='use only this many photos (smoke test)')
    ap.add_argument('--threads', type=int, default=2)
    a = ap.parse_args(argv)

    torch.manual_seed(a.seed)
    np.random.seed(a.seed)
    torch.set_num_threads(a.threads)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    photos = list_photos(a.data)
    assign_folds(photos, a.folds)
    write_folds(photos, os.path.join(a.out, 'folds.csv'))
    train = [p for p in photos if p.fold != a.fold]
    if a.limit:
        train = train[: a.limit // 2] + train[-(a.limit - a.limit // 2):]
    train = [p for p in train if load_photo(p, a.data, a.masks)]
    counts = {k: sum(p.kind == k for p in train) for k in ('pixel', 'healthy', 'lesioned')}
    print(f'train: {len(train)} photos {counts}, held-out fold {a.fold}, loaded in {time.time() - t0:.1f} s', flush=True)

    net = BruiseUNet()
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.15)
    # One loader process renders the next batches while this one trains (same order every run).
    batches = iter(torch.utils.data.DataLoader(Batches(train, a.seed + 1000 * (a.fold + 1), a.batch), batch_size=None,
                                               num_workers=1, prefetch_factor=4))
    net.train()
    log = []
    for step in range(1, a.steps + 1):
        x, t, f, kinds = next(batches)
        loss = loss_fn(net(x), t, f, kinds)
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
        'sizes': SIZES, 'input_side': INPUT_SIDE, 'photos': counts, 'seconds': round(time.time() - t0, 1),
        'loss_last_100': float(np.mean(log[-100:])), 'torch': torch.__version__,
    }
    with open(os.path.join(a.out, 'train.json'), 'w') as fh:
        json.dump(info, fh, indent=2)
    print(json.dumps(info), flush=True)


if __name__ == '__main__':
    sys.exit(main())
