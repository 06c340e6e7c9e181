"""Training photos with pixel truth of fruit and lesion: the real dev-split photos annotated to
../ANNOTATION.md (annotations/real-dev.coco.json, rebuilt from the specs by `python3 -m mango_annotate
build`) and the synthetic composites (their fruit and bruise masks). AI CUP photos never train.

Photos are kept at a long side of at most MAX_SIDE; training views are squares cut from them the
two ways the product looks at a photo (plugins/bruise/src/model.ts):
- the whole photo, zero-padded to a square (the first look, which finds the fruit);
- one fruit's square: its bounding box plus a margin (FRUIT_MARGIN at inference, jittered here).
"""
import json
import os
from dataclasses import dataclass, field

import numpy as np
from PIL import Image
from scipy import ndimage

from .data import FRUIT_MARGIN, read_csv

MAX_SIDE = 768


@dataclass
class Photo:
    set: str  # 'composites' | 'senmango' | 'correction'
    filename: str
    group: str
    klass: str = ''
    fold: int = -1
    images_dir: str = ''  # a correction's photos folder (`mango train bruise --images`)
    coco: str = ''  # a correction's COCO file
    rgb: np.ndarray = field(default=None, repr=False)
    fruit: np.ndarray = field(default=None, repr=False)
    bruise: np.ndarray = field(default=None, repr=False)
    boxes: list = field(default_factory=list, repr=False)  # fruit instances: (x0, y0, x1, y1), end exclusive


def rle_decode(seg, h, w):
    counts = seg['counts']
    if isinstance(counts, str):
        raise ValueError('compressed RLE strings are not used by mango_annotate')
    flat = np.zeros(h * w, np.uint8)
    pos, val = 0, 0
    for c in counts:
        if val:
            flat[pos:pos + c] = 1
        pos += c
        val ^= 1
    return flat.reshape(w, h).T.astype(bool)


# The AI CUP photos: their folder in the dev split, and the source-group prefix an annotated one gets
# (mango_annotate build); the one place both are written on the Python side.
EVALUATION_SET = 'aicup_defect_boxes'
EVALUATION_GROUP = 'aicup:'


def evaluation_only(im):
    """An AI CUP photo (`annotations/aicup-eval.coco.json`, or a correction of one): its terms are unknown
    and the data README calls it test material, so it evaluates and never trains."""
    return str(im.get('path', '')).startswith(EVALUATION_SET + '/') or str(im.get('source_group', '')).startswith(EVALUATION_GROUP)


def _refuse_evaluation_only(im, coco_file):
    if evaluation_only(im):
        raise SystemExit(f"train: {im.get('file_name')} in {coco_file} is an AI CUP photo: evaluation only, it never trains a model")


def list_photos(data_dir, coco_path, extra=()):
    """Annotated real photos (COCO) and composites, with their source groups; then the corrections of
    `extra` ((coco file, images folder) pairs: `mango train bruise`), grouped by their COCO image's
    `source_group` (else each photo is its own group). Without data_dir: the corrections alone."""
    photos = []
    for coco_file, images_dir in extra:
        for im in json.load(open(coco_file))['images']:
            _refuse_evaluation_only(im, coco_file)
            photos.append(Photo('correction', im['file_name'], im.get('source_group') or im['file_name'],
                                images_dir=images_dir, coco=coco_file))
    if not data_dir:
        return photos
    if coco_path and os.path.exists(coco_path):
        coco = json.load(open(coco_path))
        for im in coco['images']:
            _refuse_evaluation_only(im, coco_path)
            photos.append(Photo('senmango', im['file_name'], im['source_group'], im.get('class', '')))
    comp = os.path.join(data_dir, 'synthetic_composites')
    groups = {r['filename']: r['source_group'] for r in read_csv(os.path.join(comp, 'provenance.csv'))}
    for r in read_csv(os.path.join(comp, 'truth.csv')):
        photos.append(Photo('composites', r['filename'], groups[r['filename']]))
    return photos


def _scale(img_size):
    w, h = img_size
    f = min(1.0, MAX_SIDE / max(w, h))
    return max(1, round(w * f)), max(1, round(h * f))


def load(photos, data_dir, coco_path):
    """Fills rgb / fruit / bruise / boxes of every photo."""
    cocos = {}

    def coco_of(path):
        if path not in cocos:
            c = json.load(open(path)) if path and os.path.exists(path) else {'images': [], 'annotations': []}
            anns = {}
            for a in c['annotations']:
                anns.setdefault(a['image_id'], []).append(a)
            cocos[path] = ({im['file_name']: im for im in c['images']}, anns)
        return cocos[path]

    for p in photos:
        if p.set in ('senmango', 'correction'):
            by_name, anns = coco_of(p.coco if p.set == 'correction' else coco_path)
            im = by_name[p.filename]
            folder = p.images_dir if p.set == 'correction' else os.path.join(data_dir, 'senmango_real_lesions', 'images')
            img = Image.open(os.path.join(folder, p.filename)).convert('RGB')
            h, w = im['height'], im['width']
            inst, bruise = [], np.zeros((h, w), bool)
            for a in anns.get(im['id'], []):
                m = rle_decode(a['segmentation'], h, w)
                if a['category_id'] == 1:
                    inst.append(m)
                else:
                    bruise |= m
        else:
            img = Image.open(os.path.join(data_dir, 'synthetic_composites', 'images', p.filename)).convert('RGB')
            stem = os.path.splitext(p.filename)[0]
            f = np.asarray(Image.open(os.path.join(data_dir, 'synthetic_composites', 'fruit_masks', stem + '.png')).convert('L')) > 127
            bruise = np.asarray(Image.open(os.path.join(data_dir, 'synthetic_composites', 'bruise_masks', stem + '.png')).convert('L')) > 127
            inst = [f]
        size = _scale(img.size)
        if size != img.size:
            img = img.resize(size, Image.BOX)
            rs = lambda m: np.asarray(Image.fromarray(m.astype(np.uint8) * 255).resize(size, Image.BILINEAR)) > 127
            inst = [rs(m) for m in inst]
            bruise = rs(bruise)
        p.rgb = np.asarray(img)
        p.fruit = np.zeros(p.rgb.shape[:2], bool)
        for m in inst:
            p.fruit |= m
        p.bruise = bruise & p.fruit
        p.boxes = []
        for m in inst:
            ys, xs = np.nonzero(m)
            if len(ys) >= 50:
                p.boxes.append((int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1))
    return photos


def cut(a, x0, y0, side, out, resample):
    """The square [x0, x0+side) x [y0, y0+side) of an array, zero outside, resized to out x out."""
    mode = 'RGB' if a.ndim == 3 else 'L'
    im = Image.fromarray(a if a.dtype == np.uint8 else a.astype(np.uint8) * 255, mode)
    canvas = Image.new(mode, (side, side))
    canvas.paste(im, (-x0, -y0))
    return np.asarray(canvas.resize((out, out), resample))


def view(rng, p, out, whole_share=0.35):
    """A training view of photo p at out x out: (rgb float [0, 1], fruit bool, bruise bool)."""
    h, w = p.fruit.shape
    if rng.random() < whole_share or not p.boxes:
        L = max(h, w)
        s = L * rng.uniform(0.8, 1.1)
        cx = w / 2 + rng.uniform(-0.1, 0.1) * L
        cy = h / 2 + rng.uniform(-0.1, 0.1) * L
    else:
        x0, y0, x1, y1 = p.boxes[rng.integers(len(p.boxes))]
        margin = FRUIT_MARGIN + rng.uniform(-0.04, 0.08)
        s = max(x1 - x0, y1 - y0) * (1 + 2 * margin)
        cx = (x0 + x1) / 2 + rng.uniform(-0.05, 0.05) * s
        cy = (y0 + y1) / 2 + rng.uniform(-0.05, 0.05) * s
    side = max(8, int(round(s)))
    x0, y0 = int(round(cx - side / 2)), int(round(cy - side / 2))
    rs = Image.BOX if side > out else Image.BILINEAR
    rgb = cut(p.rgb, x0, y0, side, out, rs).astype(np.float32) / 255
    fruit = cut(p.fruit, x0, y0, side, out, Image.BILINEAR) > 127
    bruise = (cut(p.bruise, x0, y0, side, out, Image.BILINEAR) > 127) & fruit
    return rgb, fruit, bruise


def fruit_count(fruit):
    return ndimage.label(fruit, structure=np.ones((3, 3)))[1]
