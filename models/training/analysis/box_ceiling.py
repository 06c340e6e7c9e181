"""How much of each AI CUP lesion box a perfect detector could mark.

    /usr/bin/python3 models/training/analysis/box_ceiling.py [../shared/data/bruise-dev/aicup_defect_boxes]

`mango eval bruise` counts a defect box as found when at least 10 % of its pixels are marked bruise.
This script measures, independently of the product (scikit-image's CIELAB), how much of each
anthracnose and latex box is visibly darker than the peel around it:

- L* of the photo, smoothed (Gaussian, sigma 1.5 px) against JPEG noise;
- the local peel level: the median L* over a 41 x 41 px window (larger than the lesions);
- darkening d = local peel level - L*, per pixel;
- `peak`: the largest d inside the box;
- `half-peak region`: the box pixels with d >= peak / 2, the ground-truth rule of the synthetic
  composites (a pixel is bruise where the darkening is at least half of the bruise's peak);
- the shares of the box with d >= 2, 3 and 5 L* units.

A box whose half-peak region covers less than 10 % of it cannot be found by a detector that marks
exactly the lesion under the project's truth rule; it is found only by marking peel that is not
darker than half the lesion's peak. Prints a table and the count of boxes within reach.
"""
import csv
import os
import sys

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage import color

here = os.path.dirname(os.path.abspath(__file__))
default = os.path.join(here, '../../../../shared/data/bruise-dev/aicup_defect_boxes')
root = sys.argv[1] if len(sys.argv) > 1 else default
rows = [r for r in csv.DictReader(open(os.path.join(root, 'boxes.csv'))) if r['class'] in ('anthracnose', 'latex')]
print(f'{"file":<10} {"class":<12} {"peak dL":>7} {"half-peak %":>11} {"d>=2 %":>7} {"d>=3 %":>7} {"d>=5 %":>7}')
reach = 0
for r in rows:
    im = np.asarray(Image.open(os.path.join(root, 'images', r['filename'])).convert('RGB'), dtype=np.float64) / 255
    x, y, w, h = (int(r[k]) for k in 'xywh')
    y0, x0 = max(0, y - h), max(0, x - w)
    L = color.rgb2lab(im[y0:y + 2 * h, x0:x + 2 * w])[..., 0]
    d = ndimage.median_filter(L, size=41) - ndimage.gaussian_filter(L, 1.5)
    box = d[y - y0:y - y0 + h, x - x0:x - x0 + w]
    peak = float(box.max())
    half = float((box >= peak / 2).mean() * 100) if peak > 0 else 0.0
    reach += half >= 10
    shares = [float((box >= t).mean() * 100) for t in (2, 3, 5)]
    print(f'{r["filename"]:<10} {r["class"]:<12} {peak:7.1f} {half:11.1f} ' + ' '.join(f'{s:7.1f}' for s in shares))
print(f'boxes whose half-peak region covers >= 10 % of the box: {reach} / {len(rows)}')
