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

/**
 * Target size for an image of srcWidth x srcHeight. With keepAspect and one side given, the other
 * follows the image's own ratio; with both given, the image is fitted within that width x height box
 * keeping its own ratio (a batch of photos of different shapes: each keeps its shape, none is
 * distorted and none passes the box; the side that limits it is exact, the other rounded, at least 1).
 */
export function targetSize(
  srcWidth: number,
  srcHeight: number,
  o: { width?: number; height?: number; keepAspect: boolean },
): { width: number; height: number } {
  const ratio = srcWidth / srcHeight;
  if (o.keepAspect) {
    if (o.width !== undefined && o.height !== undefined) {
      // the box's own ratio against the image's: the wider of the two sets the limiting side
      return ratio >= o.width / o.height
        ? { width: o.width, height: Math.min(o.height, heightForWidth(o.width, ratio)) }
        : { width: Math.min(o.width, widthForHeight(o.height, ratio)), height: o.height };
    }
    if (o.width !== undefined) return { width: o.width, height: heightForWidth(o.width, ratio) };
    if (o.height !== undefined) return { width: widthForHeight(o.height, ratio), height: o.height };
  }
  if (o.width === undefined || o.height === undefined) throw new RangeError('Please enter both width and height!');
  return { width: o.width, height: o.height };
}
