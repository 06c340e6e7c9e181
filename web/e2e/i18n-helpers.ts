/** Helpers of the Thai end-to-end checks. */
import type { E2E } from './harness.ts';

/**
 * English words a Thai page may still show: names, formats, units, and the user's own data.
 * Anything else in Latin letters on a Thai page is an untranslated text.
 */
const LATIN_ALLOWED = new Set(
  (
    'Mango Bruise Tracker English API CSV JSON HTML ZIP JPG JPEG PNG WEBP WebP TIFF RGB HSV LAB GLCM LBP Gabor ' +
    'TypeScript React Node.js ONNX Runtime U-Net Facebook Instagram LinkedIn Codex K-Means Affine CIELAB ' +
    'Otsu Crofton Flusser-Suk scikit-image skimage rgb2hsv GMT+7 Lab Mango mangobruisetracker.org support ' +
    'OpenAPI Bearer API. ROC AUC CXS SenMango CLI GMT+ rgb hsv Frobenius png scheme://host[:port] https://shop.example.com Extra Class I II px cm² MB KB ' +
    // product names, and the identifiers a metadata pattern and CSV use (code, not prose: {name}, image, fruit_id)
    'ColorChecker Classic Passport image name fruit SVG zip Student ' +
    // annotation formats and tools (the run page's annotations)
    'COCO CVAT Label Studio ' +
    // a statistic named after its author (Lin's concordance correlation coefficient)
    'Lin CCC'
  ).split(' '),
);

/** Latin words of 3+ letters on the page that are not allowed above, nor the signed-in user's data. */
export async function untranslated(e2e: E2E, ignore: string[] = []) {
  const text = await e2e.page.locator('body').innerText();
  const words = text.match(/[A-Za-z][A-Za-z.+\-/:[\]]{2,}/g) ?? [];
  return [...new Set(words)].filter(
    (w) => !LATIN_ALLOWED.has(w) && !ignore.some((i) => w.includes(i) || i.includes(w)),
  );
}
