/**
 * One-line descriptions of the 13 features for the selection page.
 * TODO: import FEATURE_DESCRIPTIONS from @mango/plugin-features once it exports them.
 */
import type { FeatureId } from '@mango/core';

export const FEATURE_DESCRIPTIONS: Record<FeatureId, string> = {
  rgb: 'Mean and standard deviation of the red, green and blue channels over the fruit.',
  hsv: 'Mean and standard deviation of hue, saturation and value over the fruit.',
  lab: 'Mean and standard deviation of CIELAB lightness L*, a* and b* over the fruit.',
  grayscale: 'Grey-level mean, spread, range, skewness, kurtosis and entropy.',
  glcm: 'Grey-level co-occurrence texture: contrast, dissimilarity, homogeneity, energy, correlation, ASM.',
  lbp: 'Histogram of uniform local binary patterns (8 neighbours, radius 1).',
  gabor: 'Mean and spread of Gabor filter responses at 2 frequencies and 4 orientations.',
  factual: 'Fractal (box-counting) dimension of the texture and of the outline.',
  eccentricity: 'Eccentricity, major and minor axis lengths and orientation of the fitted ellipse.',
  area: 'Area, convex area, solidity, extent, equivalent diameter and area fraction of the fruit.',
  perimeter: 'Perimeter, Crofton perimeter and circularity of the fruit outline.',
  affineinvariant: 'Four Flusser-Suk affine moment invariants of the fruit shape.',
  algebraic: 'The five largest normalised singular values of the grey image of the fruit.',
};
