/**
 * computeFeatures(image, ids): the 13 feature groups of shared/spec/features.md, as pure
 * functions over a RasterImage. Every value matches shared/reference/features_ref.py
 * (scikit-image 0.19) within the spec's tolerances; see README.md for the measured accuracy.
 */
import { largestComponent, MangoError, type RasterImage } from '@mango/core';
import { grayscaleStats, hsvStats, labStats, rgbStats } from './colorStats.ts';
import { fractalFeatures } from './fractal.ts';
import { gaborFeatures } from './gabor.ts';
import { glcmProperties } from './glcm.ts';
import { grayPlanes } from './gray.ts';
import { lbpHistogram } from './lbp.ts';
import { boundingBox } from './maskOps.ts';
import { affineInvariants } from './moments.ts';
import { shapeFeatures } from './regionprops.ts';
import { topSingularValues } from './svd.ts';
import { FEATURE_IDS, type FeatureId } from './names.ts';

export type FeatureValues = Partial<Record<FeatureId, Record<string, number>>>;

/** Mask rule: alpha >= 128 when any pixel is not fully opaque, otherwise every pixel. */
export function foregroundMask(image: RasterImage): { mask: Uint8Array; count: number } {
  const n = image.width * image.height;
  const d = image.data;
  let transparent = false;
  for (let j = 3; j < d.length; j += 4)
    if (d[j] !== 255) {
      transparent = true;
      break;
    }
  const mask = new Uint8Array(n);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const on = !transparent || d[4 * i + 3] >= 128 ? 1 : 0;
    mask[i] = on;
    count += on;
  }
  return { mask, count };
}

/** sv_1..sv_5: top singular values of gray (0 outside M) over M's bounding box, over its Frobenius norm. */
export function algebraicFeatures(gray: Float64Array, mask: Uint8Array, width: number, height: number) {
  const box = boundingBox(mask, width, height)!;
  const a = new Float64Array(box.width * box.height);
  let ss = 0;
  for (let y = 0; y < box.height; y++)
    for (let x = 0; x < box.width; x++) {
      const i = (box.y + y) * width + box.x + x;
      const v = mask[i] ? gray[i] : 0;
      a[y * box.width + x] = v;
      ss += v * v;
    }
  const fro = Math.sqrt(ss);
  const sv = fro > 0 ? topSingularValues(a, box.height, box.width, 5) : [0, 0, 0, 0, 0];
  const out: Record<string, number> = {};
  sv.forEach((s, i) => (out[`sv_${i + 1}`] = fro > 0 ? s / fro : 0));
  return out;
}

export interface ComputeOptions {
  /** called after each feature group with the fraction done */
  onProgress?: (fraction: number, featureId: FeatureId) => void;
  /** checked between feature groups (throw to abort) */
  checkAbort?: () => void;
}

/**
 * Computes the requested feature groups on the image (no resizing: the plugin downscales first).
 * Throws MangoError NO_FOREGROUND when the mask is empty.
 */
export function computeFeatures(
  image: RasterImage,
  ids: readonly FeatureId[],
  options: ComputeOptions = {},
): FeatureValues {
  const { width, height } = image;
  const { mask, count } = foregroundMask(image);
  if (count === 0) throw new MangoError('NO_FOREGROUND', 'no foreground pixels');
  const wanted = FEATURE_IDS.filter((id) => ids.includes(id));
  const needsGray = wanted.some((id) => ['grayscale', 'glcm', 'lbp', 'gabor', 'factual', 'algebraic'].includes(id));
  const planes = needsGray ? grayPlanes(image) : null;
  const needsObject = wanted.some((id) =>
    ['factual', 'eccentricity', 'area', 'perimeter', 'affineinvariant'].includes(id),
  );
  // an opaque image's mask is the whole frame: one component, no labelling needed
  const object = needsObject ? (count === width * height ? mask : largestComponent(mask, width, height, 8)!) : null;
  let shapes: ReturnType<typeof shapeFeatures> | null = null;
  const shape = () => (shapes ??= shapeFeatures(object!, width, height));
  const out: FeatureValues = {};
  wanted.forEach((id, k) => {
    options.checkAbort?.();
    switch (id) {
      case 'rgb':
        out.rgb = rgbStats(image, mask, count);
        break;
      case 'hsv':
        out.hsv = hsvStats(image, mask, count);
        break;
      case 'lab':
        out.lab = labStats(image, mask, count);
        break;
      case 'grayscale':
        out.grayscale = grayscaleStats(planes!.gray, planes!.g8, mask, count);
        break;
      case 'glcm':
        out.glcm = { ...glcmProperties(planes!.g8, mask, width, height) };
        break;
      case 'lbp':
        out.lbp = lbpHistogram(planes!.g8, mask, width, height, count);
        break;
      case 'gabor':
        out.gabor = gaborFeatures(planes!.gray, mask, width, height, count, options.checkAbort);
        break;
      case 'factual':
        out.factual = fractalFeatures(planes!.g8, mask, object!, width, height);
        break;
      case 'eccentricity':
        out.eccentricity = shape().eccentricity();
        break;
      case 'area':
        out.area = shape().area();
        break;
      case 'perimeter':
        out.perimeter = shape().perimeter();
        break;
      case 'affineinvariant':
        out.affineinvariant = affineInvariants(object!, width, height);
        break;
      case 'algebraic':
        out.algebraic = algebraicFeatures(planes!.gray, mask, width, height);
        break;
    }
    options.onProgress?.((k + 1) / wanted.length, id);
  });
  return out;
}
