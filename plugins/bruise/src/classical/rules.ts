/** The colour rules every step of the classical detector shares (CIELAB units). */

/** A rise of a* above the peel beyond this is blush (bruising shifts a* by a few units at most). */
export const REDDER_IS_BLUSH = 8;

/** Blush raises a* by more than this multiple of the b* it loses; bruising mainly loses b*. */
export const BLUSH_RATIO = 0.8;

/** a* drop below the peel (with a* < 0) that makes a region greener than its peel: unripe green, not bruise. */
export const GREENER = 5;

/** Seeds must lie at least this fraction of the fruit diameter inside the outline (a dark rim crescent is shading). */
export const SEED_RIM = 0.05;

/** Blush turns peel red (a* up much more than b* down); bruising mainly loses yellow (b* down). */
export function isBlush(a: number, b: number, bgA: number, bgB: number): boolean {
  const redder = a - bgA;
  return redder > REDDER_IS_BLUSH && redder > BLUSH_RATIO * (bgB - b);
}

/** Greener than the surround: a* < 0 and `aDrop` (a* minus the surround's a*) below -GREENER (unripe patch). */
export function isGreener(a: number, aDrop: number): boolean {
  return a < 0 && aDrop < -GREENER;
}

/**
 * The b* a pure darkening of peel (bgL, bgB) down to lightness L would leave: shading scales
 * L* + 16, a*, b* by one factor. Bruised and rotten tissue falls below it (loses yellow).
 */
export function shadingB(bgB: number, bgL: number, L: number): number {
  return (bgB * (L + 16)) / (bgL + 16);
}
