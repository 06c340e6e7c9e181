"""Training data: the dev split's photos, their groups (one group = one physical fruit, across all
sets), the fold of each group, and fruit squares cut the way the product's TypeScript inference cuts
them (plugins/bruise/src/model.ts: fruitSquare)."""
import csv
import hashlib
import os
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

# Side of the square each fruit is cut to before training crops are taken from it (pixels). Larger
# than the model's input size so that scale jitter never upsamples the stored copy.
BASE_SIDE = 384
# Margin around the fruit's bounding box, per side, as a share of its long side. Must equal
# FRUIT_MARGIN in plugins/bruise/src/model.ts.
FRUIT_MARGIN = 0.06


@dataclass
class Photo:
    set: str  # 'composites' | 'senmango'
    filename: str
    group: str
    kind: str  # 'pixel' (bruise mask known), 'healthy' (all fruit pixels sound), 'lesioned' (image label)
    klass: str = ''
    fold: int = -1
    rgb: np.ndarray = field(default=None, repr=False)  # BASE_SIDE^2 x 3, uint8
    fruit: np.ndarray = field(default=None, repr=False)  # BASE_SIDE^2, bool
    bruise: np.ndarray = field(default=None, repr=False)  # BASE_SIDE^2, bool (pixel and healthy kinds)


def read_csv(path):
    with open(path, newline='', encoding='utf-8') as f:
        return list(csv.DictReader(f))


def list_photos(data_dir):
    """Every usable training photo of the dev split, with its group. AI CUP photos are never listed:
    their redistribution terms are unknown, so they only evaluate."""
    photos = []
    comp = os.path.join(data_dir, 'synthetic_composites')
    groups = {r['filename']: r['source_group'] for r in read_csv(os.path.join(comp, 'provenance.csv'))}
    for r in read_csv(os.path.join(comp, 'truth.csv')):
        photos.append(Photo('composites', r['filename'], groups[r['filename']], 'pixel'))
    sen = os.path.join(data_dir, 'senmango_real_lesions')
    groups = {r['filename']: r['source_group'] for r in read_csv(os.path.join(sen, 'provenance.csv'))}
    for r in read_csv(os.path.join(sen, 'labels.csv')):
        kind = 'lesioned' if r['lesioned'] == '1' else 'healthy'
        photos.append(Photo('senmango', r['filename'], groups[r['filename']], kind, r['class']))
    return photos


def assign_folds(photos, k):
    """Groups sorted by the sha1 of their name and dealt round-robin into k folds: balanced and
    independent of the order of the files."""
    groups = sorted({p.group for p in photos}, key=lambda g: hashlib.sha1(g.encode()).hexdigest())
    fold_of = {g: i % k for i, g in enumerate(groups)}
    for p in photos:
        p.fold = fold_of[p.group]
    return fold_of


def write_folds(photos, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', newline='', encoding='utf-8') as f:
        w = csv.writer(f)
        w.writerow(['set', 'filename', 'group', 'fold'])
        for p in sorted(photos, key=lambda p: (p.set, p.filename)):
            w.writerow([p.set, p.filename, p.group, p.fold])


def fruit_square(mask):
    """(x0, y0, side) of the square around the fruit's bounding box, with FRUIT_MARGIN per side."""
    ys, xs = np.nonzero(mask)
    x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
    side = max(x1 - x0, y1 - y0)
    side = int(round(side * (1 + 2 * FRUIT_MARGIN)))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return int(round(cx - side / 2)), int(round(cy - side / 2)), side


def cut_square(img, x0, y0, side, out, resample):
    """The square [x0, x0+side) x [y0, y0+side) of a PIL image, zero outside, resized to out x out."""
    canvas = Image.new(img.mode, (side, side))
    canvas.paste(img, (-x0, -y0))
    return canvas.resize((out, out), resample)


def largest_component(mask):
    from scipy import ndimage

    lab, n = ndimage.label(mask, structure=np.ones((3, 3)))
    if n <= 1:
        return mask
    sizes = ndimage.sum(mask, lab, range(1, n + 1))
    return lab == (1 + int(np.argmax(sizes)))


def load_photo(p, data_dir, masks_dir):
    """Fills rgb / fruit / bruise with the fruit square at BASE_SIDE. The fruit mask is the product's
    own segmentation (what inference will see); composites also have their truth bruise masks."""
    stem = os.path.splitext(p.filename)[0]
    folder = 'synthetic_composites' if p.set == 'composites' else 'senmango_real_lesions'
    img = Image.open(os.path.join(data_dir, folder, 'images', p.filename)).convert('RGB')
    fruit = np.array(Image.open(os.path.join(masks_dir, p.set, stem + '.fruit.png')).convert('L')) > 127
    if fruit.shape != (img.height, img.width) or fruit.sum() < 100:
        return False
    fruit = largest_component(fruit)
    x0, y0, side = fruit_square(fruit)
    p.rgb = np.array(cut_square(img, x0, y0, side, BASE_SIDE, Image.BILINEAR if side < BASE_SIDE else Image.BOX))
    fm = Image.fromarray((fruit * 255).astype(np.uint8))
    p.fruit = np.array(cut_square(fm, x0, y0, side, BASE_SIDE, Image.BILINEAR)) > 127
    if p.kind == 'pixel':
        bm = Image.open(os.path.join(data_dir, folder, 'bruise_masks', stem + '.png')).convert('L')
        p.bruise = np.array(cut_square(bm, x0, y0, side, BASE_SIDE, Image.BILINEAR)) > 127
    elif p.kind == 'healthy':
        p.bruise = np.zeros_like(p.fruit)
    return True
