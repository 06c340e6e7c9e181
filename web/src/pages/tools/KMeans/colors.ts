/** K-Means class colours: the colour picker's hex to RGB, and RGB to CSS. */
import type { RgbColor } from '@mango/plugin-kmeans';

/** '#rrggbb' (or 'rrggbb') to [r, g, b]; red for anything else (the default class colour). */
export function hexToRgb(hex: string): RgbColor {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  return m ? [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)] : [255, 0, 0];
}

export const rgbCss = (c: RgbColor) => `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
