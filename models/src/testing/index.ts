/**
 * The shipped bruise model's pinned outputs, for the tests of every front end (`@mango/models/testing`):
 * a retrain changes them here once, and models/src/shipped.test.ts, the CLI's and the API's tests all
 * read them from here.
 */

export const SHIPPED_ID = 'bruise-unet-320';
export const SHIPPED_SHA256 = '310da39a0229efc700fb5b4685fb0e4919dc6d044317124720f8469e6fcc9177';

/**
 * bruise_percent and bruise_pixels of the plugin (method model) on each fixture (models/fixtures), as pinned
 * (2026-11-28: the four quarter turns as test-time views in both looks; the weights unchanged).
 */
export const PINNED: Record<string, { percent: number; pixels: number }> = {
  'sample-0.png': { percent: 2.797, pixels: 1436 },
  'sample-1.png': { percent: 7.439, pixels: 3935 },
  'sample-2.png': { percent: 2.3482, pixels: 1071 },
};

/** Mean logit and count of positive logits of the whole-photo square of sample-1 (320 x 320), over the `tta` views. */
export const PINNED_LOGITS = {
  fruit: { mean: -2.99737, positive: 23629 },
  bruise: { mean: -6.74446, positive: 1763 },
};

/** Real dev photos (read from ../shared, never copied): bruise % and fruit pixels of the shipped model. */
export const PINNED_REAL: Record<string, { percent: number; fruit: number }> = {
  'lasio_145.jpg': { percent: 69.6079, fruit: 35450 },
  'healthy_012.jpg': { percent: 0, fruit: 23987 },
  'aspergillus_008.jpg': { percent: 5.7466, fruit: 34960 },
};
