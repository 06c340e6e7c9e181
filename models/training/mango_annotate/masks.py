"""Rebuilds a photo's fruit and lesion masks from its annotation spec, deterministically.

A spec (annotations/specs/<set>/<stem>.json) says how each mask was made, so that it can be audited
and rebuilt from the photo alone:

  {"file": "senmango_real_lesions/images/x.jpg", "pass": 1, "annotator": "...",
   "fruit": {"start": "border" | "grabcut" | "none", "start_params": {...},
             "add": [polygon...], "remove": [polygon...], "split": [polyline...]},
   "lesions": [{"polygon": [[x, y], ...], "rule": "all" | "delta-e" | "darker", "threshold": 12}],
   "confidence": "high" | "medium", "note": "...", "skip": "why (optional)"}

Coordinates are pixels of the photo as stored (x right, y down; polygon vertices at pixel centres).
fruit = start mask (optional) + add - remove, holes filled (rot inside a fruit is fruit), cut along
`split` lines (1-2 px background between touching fruit), components under 0.2 % of the photo dropped.
lesion = union over lesion regions of (polygon AND fruit AND rule), then opening and closing with a
3x3 square (lesions under 3 px wide survive the opening only if the rule is `all`).
Rules: `all` = every fruit pixel in the polygon; `delta-e` = CIE76 distance from the median CIELAB of
healthy peel around the polygon (fruit pixels in a ring 4-16 px outside it, minus other lesion
polygons) at least `threshold`; `darker` = L* at least `threshold` below that median.
Optional per region: `ring_inner`, `ring_outer` (px, default 4 and 16: where the healthy reference is
taken) and `fill` (default true: holes inside a rule's selection are filled).
"""
from __future__ import annotations

import json
import os

import numpy as np
from PIL import Image, ImageDraw
from scipy import ndimage as ndi
from skimage import color, filters

DATA = os.environ.get('MANGO_DATA') or os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'shared', 'data', 'bruise-dev')
HERE = os.path.dirname(os.path.abspath(__file__))
SPECS = os.path.join(HERE, '..', 'annotations', 'specs')


def load_photo(rel: str) -> np.ndarray:
    im = Image.open(os.path.join(DATA, rel))
    im = im.convert('RGB')
    return np.asarray(im)


def polygon_mask(poly, h: int, w: int, width: int = 0) -> np.ndarray:
    im = Image.new('L', (w, h), 0)
    d = ImageDraw.Draw(im)
    pts = [(float(x), float(y)) for x, y in poly]
    if width:
        d.line(pts, fill=255, width=width)
    elif len(pts) >= 3:
        d.polygon(pts, fill=255, outline=255)
    return np.asarray(im) > 0


def border_start(rgb: np.ndarray, params: dict) -> np.ndarray:
    """Chromaticity distance from the border's median (as the composites' fruit masks), Otsu, holes filled."""
    f = rgb.astype(np.float64) + 1
    chroma = f / f.sum(axis=2, keepdims=True)
    b = int(params.get('border', max(2, min(rgb.shape[:2]) // 50)))
    border = np.concatenate([chroma[:b].reshape(-1, 3), chroma[-b:].reshape(-1, 3), chroma[:, :b].reshape(-1, 3), chroma[:, -b:].reshape(-1, 3)])
    bg = np.median(border, axis=0)
    cue = np.sqrt(((chroma - bg) ** 2).sum(axis=2))
    lab = color.rgb2lab(rgb)
    bl = np.median(np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3), lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)]), axis=0)
    dl = np.sqrt(((lab - bl) ** 2).sum(axis=2)) / 100.0
    cue = cue + float(params.get('lab_weight', 0.3)) * dl
    t = filters.threshold_otsu(cue) * float(params.get('factor', 1.0))
    m = cue > t
    m = ndi.binary_opening(m, iterations=1)
    m = ndi.binary_fill_holes(m)
    lab_c, n = ndi.label(m)
    if n == 0:
        return m
    sizes = ndi.sum(m, lab_c, range(1, n + 1))
    keep = [i + 1 for i, s in enumerate(sizes) if s >= max(0.02 * m.size, sizes.max() * 0.15)]
    return np.isin(lab_c, keep)


def grabcut_start(rgb: np.ndarray, params: dict) -> np.ndarray:
    import cv2

    h, w = rgb.shape[:2]
    x, y, rw, rh = params.get('rect', [w // 20, h // 20, w - w // 10, h // 10 * 9])
    mask = np.zeros((h, w), np.uint8)
    bgd = np.zeros((1, 65), np.float64)
    fgd = np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    cv2.grabCut(np.ascontiguousarray(rgb[:, :, ::-1]), mask, (int(x), int(y), int(rw), int(rh)), bgd, fgd, int(params.get('iterations', 5)), cv2.GC_INIT_WITH_RECT)
    m = (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)
    return ndi.binary_fill_holes(m)


def fruit_mask(rgb: np.ndarray, spec: dict) -> np.ndarray:
    h, w = rgb.shape[:2]
    f = spec.get('fruit', {})
    start = f.get('start', 'none')
    if start == 'border':
        m = border_start(rgb, f.get('start_params', {}))
    elif start == 'grabcut':
        m = grabcut_start(rgb, f.get('start_params', {}))
    elif start == 'none':
        m = np.zeros((h, w), bool)
    else:
        raise ValueError(f"unknown fruit start {start!r}")
    for p in f.get('add', []):
        m |= polygon_mask(p, h, w)
    m = ndi.binary_fill_holes(m)
    for p in f.get('remove', []):
        m &= ~polygon_mask(p, h, w)
    for line in f.get('split', []):
        m &= ~polygon_mask(line, h, w, width=int(f.get('split_width', 2)))
    lab, n = ndi.label(m)
    if n:
        sizes = ndi.sum(m, lab, range(1, n + 1))
        m = np.isin(lab, [i + 1 for i, s in enumerate(sizes) if s >= 0.002 * m.size])
    return m


def lesion_mask(rgb: np.ndarray, fruit: np.ndarray, spec: dict) -> np.ndarray:
    h, w = fruit.shape
    lab = None
    polys = [polygon_mask(r['polygon'], h, w) for r in spec.get('lesions', [])]
    any_poly = np.zeros((h, w), bool)
    for p in polys:
        any_poly |= p
    out = np.zeros((h, w), bool)
    for region, p in zip(spec.get('lesions', []), polys):
        rule = region.get('rule', 'all')
        inside = p & fruit
        if rule == 'all':
            out |= inside
            continue
        if lab is None:
            lab = color.rgb2lab(rgb)
        ring = ndi.binary_dilation(p, iterations=int(region.get('ring_outer', 16))) & ~ndi.binary_dilation(p, iterations=int(region.get('ring_inner', 4)))
        ring &= fruit & ~any_poly
        if ring.sum() < 20:
            ring = fruit & ~any_poly
        if ring.sum() < 20:
            raise ValueError(f"{spec.get('file')}: no healthy peel around a lesion to compare with")
        ref = np.median(lab[ring], axis=0)
        thr = float(region.get('threshold', 12))
        if rule == 'delta-e':
            sel = np.sqrt(((lab - ref) ** 2).sum(axis=2)) >= thr
        elif rule == 'darker':
            sel = (ref[0] - lab[:, :, 0]) >= thr
        else:
            raise ValueError(f"unknown lesion rule {rule!r}")
        r = inside & sel
        r = ndi.binary_opening(r, structure=np.ones((3, 3)))
        r = ndi.binary_closing(r, structure=np.ones((3, 3))) & inside
        out |= ndi.binary_fill_holes(r) & inside if region.get('fill', True) else r
    return out & fruit


def fruit_instances(fruit: np.ndarray) -> list[np.ndarray]:
    lab, n = ndi.label(fruit, structure=np.ones((3, 3)))
    return [lab == i for i in range(1, n + 1)]


def build(spec: dict):
    rgb = load_photo(spec['file'])
    fruit = fruit_mask(rgb, spec)
    lesion = lesion_mask(rgb, fruit, spec)
    return rgb, fruit, lesion


def spec_paths(root: str = SPECS, pass_: int | None = 1):
    out = []
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith('.json'):
                p = os.path.join(d, f)
                if pass_ is not None:
                    s = json.load(open(p))
                    if int(s.get('pass', 1)) != pass_:
                        continue
                out.append(p)
    return sorted(out)
