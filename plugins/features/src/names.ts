/**
 * The features the plugin computes: their ids (the `features` option and field, the history's
 * `Features Analysis: ` operation), categories and display names, and the value names of every
 * feature (the reference's order, which is also the CSV column order) with one-line descriptions.
 * Browser-safe: no Node imports.
 */
import { z } from 'zod';

export const FEATURE_IDS = [
  'rgb',
  'hsv',
  'lab',
  'grayscale',
  'glcm',
  'lbp',
  'gabor',
  'factual',
  'eccentricity',
  'area',
  'perimeter',
  'affineinvariant',
  'algebraic',
] as const;
export const FeatureId = z.enum(FEATURE_IDS);
export type FeatureId = z.infer<typeof FeatureId>;

export const FEATURE_CATEGORIES = {
  color: ['rgb', 'hsv', 'lab', 'grayscale'],
  texture: ['glcm', 'lbp', 'gabor', 'factual'],
  shape: ['eccentricity', 'area', 'perimeter'],
  others: ['affineinvariant', 'algebraic'],
} as const satisfies Record<string, readonly FeatureId[]>;

export const FEATURE_DISPLAY_NAMES: Record<FeatureId, string> = {
  rgb: 'RGB Color Space',
  hsv: 'HSV Color Space',
  lab: 'LAB Color Space',
  grayscale: 'Grayscale Intensity',
  glcm: 'GLCM Texture',
  lbp: 'LBP Patterns',
  gabor: 'Gabor Filters',
  factual: 'Factual Features',
  eccentricity: 'Eccentricity',
  area: 'Area',
  perimeter: 'Perimeter',
  affineinvariant: 'Affine Invariant',
  algebraic: 'Algebraic Features',
};

const stat = (prefix: string, channels: string[]) => [
  ...channels.map((c) => `${prefix}mean_${c}`),
  ...channels.map((c) => `${prefix}std_${c}`),
];

const gaborNames = ['0.1', '0.3'].flatMap((f) =>
  ['0', '45', '90', '135'].flatMap((t) => [`gabor_f${f}_t${t}_mean`, `gabor_f${f}_t${t}_std`]),
);

export const FEATURE_VALUE_NAMES: Record<FeatureId, string[]> = {
  rgb: stat('', ['R', 'G', 'B']),
  hsv: stat('', ['H', 'S', 'V']),
  lab: stat('', ['L', 'a', 'b']),
  grayscale: ['gray_mean', 'gray_std', 'gray_min', 'gray_max', 'gray_skewness', 'gray_kurtosis', 'gray_entropy'],
  glcm: ['glcm_contrast', 'glcm_dissimilarity', 'glcm_homogeneity', 'glcm_energy', 'glcm_correlation', 'glcm_ASM'],
  lbp: Array.from({ length: 10 }, (_, i) => `lbp_${i}`),
  gabor: gaborNames,
  factual: ['fractal_dimension_texture', 'fractal_dimension_outline'],
  eccentricity: ['eccentricity', 'major_axis_length', 'minor_axis_length', 'orientation'],
  area: ['area', 'convex_area', 'solidity', 'extent', 'equivalent_diameter', 'area_fraction'],
  perimeter: ['perimeter', 'perimeter_crofton', 'circularity'],
  affineinvariant: ['ami_1', 'ami_2', 'ami_3', 'ami_4'],
  algebraic: ['sv_1', 'sv_2', 'sv_3', 'sv_4', 'sv_5'],
};

export const FEATURE_DESCRIPTIONS: Record<FeatureId, string> = {
  rgb: 'Mean and population standard deviation of R, G and B (0-255) over the foreground.',
  hsv: 'Mean and standard deviation of hue, saturation and value (skimage rgb2hsv, 0-1) over the foreground.',
  lab: 'Mean and standard deviation of CIELAB L*, a*, b* (D65, 2 degrees) over the foreground.',
  grayscale:
    'Gray level (0.2125 R + 0.7154 G + 0.0721 B, 0-1): mean, std, min, max, skewness, excess kurtosis, and the entropy in bits of its 256-bin histogram.',
  glcm: 'Co-occurrence texture of the 8-bit gray image (distance 1, 4 angles, foreground pairs only): contrast, dissimilarity, homogeneity, energy, correlation, ASM.',
  lbp: 'Normalised histogram of uniform local binary patterns (8 neighbours, radius 1) over the foreground.',
  gabor:
    'Mean and std of the Gabor response magnitude at frequencies 0.1 and 0.3 and orientations 0, 45, 90, 135 degrees.',
  factual: 'Box-counting fractal dimensions of the Otsu-thresholded texture and of the outline of the largest object.',
  eccentricity: 'Eccentricity, major and minor axis lengths and orientation (radians) of the largest object.',
  area: 'Largest object: pixel area, convex hull area, solidity, extent, equivalent diameter, and area over image size.',
  perimeter: 'Largest object: perimeter (4-neighbourhood), Crofton perimeter and circularity 4 pi A / P^2.',
  affineinvariant: 'Flusser-Suk affine moment invariants I1-I4 of the largest object.',
  algebraic:
    "The five largest singular values of the gray image over the foreground's bounding box, divided by its Frobenius norm.",
};
