/**
 * Node-only helpers that run the scikit-image reference (shared/reference/features_ref.py, Debian's
 * python3-skimage under /usr/bin/python3) for the tests, the benchmark and the fixture generator.
 * Not exported by the package and left out of its build.
 *
 * numpy's BLAS decides the last bit of rgb2gray, and so G8 at exact .5 ties (see gray.ts). The
 * reference BLAS (libblas3, what `apt-get install python3-skimage` brings) sums in plain IEEE
 * order. OpenBLAS (python3-torch pulls it in, and it then becomes the system's libblas.so.3) uses
 * fused multiply-adds on x86-64, in an order that depends on the image shape. `referenceEnv()`
 * points numpy at the reference BLAS, so the reference gives the same G8 on every machine,
 * whatever else is installed there. `referenceUnavailable()` checks that this worked.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { RasterImage } from '@mango/core';
import { loadImageFile, SHARED_MISSING } from '@mango/core/testing/node';

export const PYTHON = '/usr/bin/python3';

/** The folder of the reference BLAS's libblas.so.3 (Debian's libblas3), or null when it is absent. */
export function referenceBlasDir(): string | null {
  for (const lib of ['/usr/lib', '/lib']) {
    if (!existsSync(lib)) continue;
    for (const triplet of readdirSync(lib)
      .filter((d) => d.endsWith('-linux-gnu'))
      .sort()) {
      const dir = join(lib, triplet, 'blas');
      if (existsSync(join(dir, 'libblas.so.3'))) return dir;
    }
  }
  return null;
}

/** Environment for /usr/bin/python3: numpy on the reference BLAS, one thread. */
export function referenceEnv(): NodeJS.ProcessEnv {
  const blas = referenceBlasDir();
  const path = [blas, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
  return { ...process.env, OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', LD_LIBRARY_PATH: path };
}

/**
 * Colours whose G8 the reference BLAS rounds differently from OpenBLAS's fused multiply-adds
 * (those of the wide images' dgemv and of the 1-px-wide images' ddot), with the reference's G8.
 */
export const TIE_COLOURS: ReadonlyArray<readonly [r: number, g: number, b: number, g8: number]> = [
  [0, 40, 40, 32],
  [5, 252, 127, 190],
  [8, 48, 48, 40],
  [18, 11, 136, 22],
  [20, 187, 62, 142],
  [2, 75, 200, 69],
  [2, 122, 122, 96],
  [4, 251, 126, 189],
  [6, 79, 204, 73],
  [6, 206, 206, 164],
];

const PROBE = `
import numpy as np
from skimage import color
from skimage.util import img_as_ubyte
c = np.array(${JSON.stringify(TIE_COLOURS.map(([r, g, b]) => [r, g, b]))}, dtype=np.float64) / 255.0
wide = img_as_ubyte(color.rgb2gray(c.reshape(1, -1, 3))).ravel()
tall = img_as_ubyte(color.rgb2gray(c.reshape(-1, 1, 3))).ravel()
print(" ".join(map(str, wide)), "|", " ".join(map(str, tall)))
`;

/**
 * Null when the reference can run here as the tests need it, else the message to skip with:
 * ../shared missing, /usr/bin/python3 without scikit-image, or numpy not on the reference BLAS.
 */
export function referenceUnavailable(shared: string | null): string | null {
  if (!shared) return SHARED_MISSING;
  if (spawnSync(PYTHON, ['-c', 'import skimage, scipy, PIL'], { stdio: 'ignore' }).status !== 0)
    return `skipped: ${PYTHON} with scikit-image (Debian's python3-skimage) is not available for the reference`;
  const probe = spawnSync(PYTHON, ['-c', PROBE], { encoding: 'utf8', env: referenceEnv() });
  const expected = TIE_COLOURS.map((c) => c[3]).join(' ');
  if (probe.status !== 0 || probe.stdout.trim() !== `${expected} | ${expected}`)
    return (
      `skipped: numpy under ${PYTHON} does not run on the reference BLAS (Debian's libblas3` +
      `${referenceBlasDir() ? '' : ', not installed'}), so its rgb2gray rounds some colours differently ` +
      `(got "${probe.stdout.trim()}", want "${expected} | ${expected}"); apt-get install libblas3`
    );
  return null;
}

export type ReferenceValues = Record<string, Record<string, number>>;

export interface ReferenceResult {
  image_name: string;
  /** the G8 image the reference's features were computed from (row-major), when asked for */
  g8?: Uint8Array;
  features?: ReferenceValues;
  error?: string;
}

// Runs features_ref.features_for and records the G8 image it makes: img_as_ubyte is wrapped, so
// the G8 returned is the very array that fed the reference's GLCM, LBP and Otsu.
const RUNNER = `
import base64, json, sys
sys.path.insert(0, sys.argv[1])
import features_ref as ref
wanted = ref.ALL if sys.argv[2] == "all" else sys.argv[2].split(",")
made = []
as_ubyte = ref.img_as_ubyte
def recording_img_as_ubyte(image):
    made.append(as_ubyte(image))
    return made[-1]
ref.img_as_ubyte = recording_img_as_ubyte
out = []
for path in sys.argv[3:]:
    rgb, mask = ref.load(path)
    item = {"image_name": path.rsplit("/", 1)[-1]}
    if not mask.any():
        item["error"] = "no foreground pixels"
    else:
        made.clear()
        item["features"] = ref.features_for(rgb, mask, wanted)
        g8 = made[0]
        assert g8.dtype.name == "uint8" and g8.shape == rgb.shape[:2]
        item["g8"] = base64.b64encode(g8.tobytes()).decode()
    out.append(item)
json.dump(out, sys.stdout)
`;

/**
 * Runs the reference on image files (one process, numpy on the reference BLAS): the values of the
 * `wanted` feature groups (default all 13) and the G8 image they came from.
 */
export function runReference(shared: string, paths: string[], wanted: string[] | 'all' = 'all'): ReferenceResult[] {
  const out = JSON.parse(
    execFileSync(
      PYTHON,
      ['-c', RUNNER, join(shared, 'reference'), wanted === 'all' ? 'all' : wanted.join(','), ...paths],
      { encoding: 'utf8', maxBuffer: 512 << 20, env: referenceEnv() },
    ),
  ) as (Omit<ReferenceResult, 'g8'> & { g8?: string })[];
  return out.map(({ g8, ...rest }) => ({
    ...rest,
    ...(g8 === undefined ? {} : { g8: new Uint8Array(Buffer.from(g8, 'base64')) }),
  }));
}

export interface PhotoSource {
  /** file name (with "-transparent.png" for the composite given its fruit mask as alpha) */
  name: string;
  path: string;
  /** fruit mask that becomes the alpha channel */
  fruitMask?: string;
}

/**
 * The dev photos that the other tests analyse for features, by name: the analysis page's browser test
 * (web/e2e/analysis.e2e.test.ts: its healthy photo) and `mango measure` (cli/src/measure.test.ts: two
 * AI CUP tray photos). The other photos those tests use are among the first ones picked below
 * (perFruit.test.ts runs the reference on its own fruit crops).
 */
export const FEATURE_TEST_PHOTOS = [
  'senmango_real_lesions/images/healthy_001.jpg',
  'aicup_defect_boxes/images/10911.jpg',
  'aicup_defect_boxes/images/34737.jpg',
] as const;

/**
 * The 10 real photos of the live reference tests: the first 3 SenMango photos, the first 2
 * synthetic composites and the first AI CUP tray photo (sorted by name), the third composite
 * made transparent with its fruit mask as alpha, and the FEATURE_TEST_PHOTOS.
 */
export function referencePhotoSources(shared: string): PhotoSource[] {
  const data = join(shared, 'data/bruise-dev');
  const pick = (sub: string, n: number) =>
    readdirSync(join(data, sub, 'images'))
      .filter((f) => /\.(jpe?g|png)$/i.test(f))
      .sort()
      .slice(0, n)
      .map((f) => join(data, sub, 'images', f));
  const sources: PhotoSource[] = [
    ...pick('senmango_real_lesions', 3),
    ...pick('synthetic_composites', 2),
    ...pick('aicup_defect_boxes', 1),
  ].map((path) => ({ name: basename(path), path }));
  const composite = pick('synthetic_composites', 3)[2];
  const stem = basename(composite).replace(/\.[^.]+$/, '');
  sources.push({
    name: `${stem}-transparent.png`,
    path: composite,
    fruitMask: join(data, 'synthetic_composites/fruit_masks', `${stem}.png`),
  });
  for (const photo of FEATURE_TEST_PHOTOS) sources.push({ name: basename(photo), path: join(data, photo) });
  return sources;
}

/** The photo as the plugin receives it. */
export async function loadReferencePhoto(source: PhotoSource): Promise<RasterImage> {
  const photo = await loadImageFile(source.path);
  if (source.fruitMask) {
    const fruit = await loadImageFile(source.fruitMask);
    for (let i = 0; i < photo.width * photo.height; i++) photo.data[4 * i + 3] = fruit.data[4 * i];
  }
  return photo;
}
