/**
 * The shipped bruise model's pinned outputs, for the tests of every front end (`@mango/models/testing`):
 * a retrain changes them here once, and models/src/shipped.test.ts, the CLI's and the API's tests all
 * read them from here.
 */

export const SHIPPED_ID = 'bruise-unet-320';
export const SHIPPED_SHA256 = 'a50f686f1dfc5e9904aa725e3c4938b58574ae09238a802d3b66d02d28e3a1ef';

/**
 * bruise_percent and bruise_pixels of the plugin (method model) on each fixture (models/fixtures), as pinned
 * (2026-11-28: the 4000-step model; its fruit squares placed and shrunk so that they turn with the photo).
 */
export const PINNED: Record<string, { percent: number; pixels: number }> = {
  'sample-0.png': { percent: 2.8083, pixels: 1445 },
  'sample-1.png': { percent: 7.6427, pixels: 4064 },
  'sample-2.png': { percent: 2.3141, pixels: 1056 },
};

/** Mean logit and count of positive logits of the whole-photo square of sample-1 (320 x 320), over the `tta` views. */
export const PINNED_LOGITS = {
  fruit: { mean: -3.93992, positive: 23841 },
  bruise: { mean: -9.15081, positive: 1732 },
};

/** Real dev photos (read from ../shared, never copied): bruise % and fruit pixels of the shipped model. */
export const PINNED_REAL: Record<string, { percent: number; fruit: number }> = {
  'lasio_145.jpg': { percent: 69.1588, fruit: 35177 },
  'healthy_012.jpg': { percent: 0, fruit: 24062 },
  'aspergillus_008.jpg': { percent: 6.3811, fruit: 33897 },
};
