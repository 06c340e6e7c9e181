/**
 * The shipped bruise model's pinned outputs, for the tests of every front end (`@mango/models/testing`):
 * a retrain changes them here once, and models/src/shipped.test.ts, the CLI's and the API's tests all
 * read them from here.
 */

export const SHIPPED_ID = 'bruise-unet-320';
export const SHIPPED_SHA256 = 'a2b980ed1fd2a157907311e193dd25dbceedaeaeb9e983232e35e49bb2e6b452';

/**
 * bruise_percent and bruise_pixels of the plugin (method model) on each fixture (models/fixtures), as pinned
 * (2026-11-28: the 6000-step model; its fruit squares placed and shrunk so that they turn with the photo).
 */
export const PINNED: Record<string, { percent: number; pixels: number }> = {
  'sample-0.png': { percent: 2.8219, pixels: 1452 },
  'sample-1.png': { percent: 7.5336, pixels: 4003 },
  'sample-2.png': { percent: 2.3595, pixels: 1073 },
};

/** Mean logit and count of positive logits of the whole-photo square of sample-1 (320 x 320), over the `tta` views. */
export const PINNED_LOGITS = {
  fruit: { mean: -5.00094, positive: 23850 },
  bruise: { mean: -11.63235, positive: 1740 },
};

/** Real dev photos (read from ../shared, never copied): bruise % and fruit pixels of the shipped model. */
export const PINNED_REAL: Record<string, { percent: number; fruit: number }> = {
  'lasio_145.jpg': { percent: 68.2462, fruit: 35328 },
  'healthy_012.jpg': { percent: 0, fruit: 24020 },
  'aspergillus_008.jpg': { percent: 6.3728, fruit: 33910 },
};
