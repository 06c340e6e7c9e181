/**
 * Keep Aspect Ratio (product-spec.md section 4): the other dimension is computed from the ratio and
 * rounded to the nearest pixel (at least 1). `ratio` is width / height.
 */
export function heightForWidth(width: number, ratio: number): number {
  return Math.max(1, Math.round(width / ratio));
}

export function widthForHeight(height: number, ratio: number): number {
  return Math.max(1, Math.round(height * ratio));
}

/** Target size for an image of srcWidth x srcHeight. With keepAspect, width wins when both are given. */
export function targetSize(
  srcWidth: number,
  srcHeight: number,
  o: { width?: number; height?: number; keepAspect: boolean },
): { width: number; height: number } {
  const ratio = srcWidth / srcHeight;
  if (o.keepAspect) {
    if (o.width !== undefined) return { width: o.width, height: heightForWidth(o.width, ratio) };
    if (o.height !== undefined) return { width: widthForHeight(o.height, ratio), height: o.height };
  }
  if (o.width === undefined || o.height === undefined) throw new RangeError('Please enter both width and height!');
  return { width: o.width, height: o.height };
}
