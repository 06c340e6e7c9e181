/**
 * Reference values of the X-Rite (GretagMacbeth) ColorChecker's 24 patches, CIE L*a*b* under D50
 * (2 degree observer), in the card's reading order: row 1 (dark skin .. bluish green) to row 4
 * (white .. black), six patches a row, the card held landscape with the brown "dark skin" patch top left.
 *
 * Classic: GretagMacbeth's values of February 2008 as shipped by ArgyllCMS, `ref/ColorChecker.cie`
 * (Debian package `argyll-ref`, /usr/share/color/argyll/ref/ColorChecker.cie; originator "Graeme Gill,
 * ArgyllCMS from Gretag Macbeth reference"). X-Rite changed some pigments in November 2014; those values
 * are not used here (no citable copy was at hand).
 * Passport: the 24 classic patches of a ColorChecker Passport as measured by Ben Goren (2012), shipped by
 * ArgyllCMS as `ref/ColorCheckerPassport.cie` (rows A1..D6 of that file, rounded to 2 decimals).
 */
export const COLOUR_CARD_KINDS = ['classic', 'passport'] as const;
export type ColourCardKind = (typeof COLOUR_CARD_KINDS)[number];

export const PATCH_NAMES = [
  'dark skin',
  'light skin',
  'blue sky',
  'foliage',
  'blue flower',
  'bluish green',
  'orange',
  'purplish blue',
  'moderate red',
  'purple',
  'yellow green',
  'orange yellow',
  'blue',
  'green',
  'red',
  'yellow',
  'magenta',
  'cyan',
  'white',
  'neutral 8',
  'neutral 6.5',
  'neutral 5',
  'neutral 3.5',
  'black',
] as const;

/** Columns and rows of the patch grid (landscape). */
export const CARD_COLUMNS = 6;
export const CARD_ROWS = 4;

/** L*, a*, b* (D50) of each patch, in PATCH_NAMES order. */
export const CARD_LAB_D50: Record<ColourCardKind, readonly (readonly [number, number, number])[]> = {
  classic: [
    [37.99, 13.56, 14.06],
    [65.71, 18.13, 17.81],
    [49.93, -4.88, -21.93],
    [43.14, -13.1, 21.91],
    [55.11, 8.84, -25.4],
    [70.72, -33.4, -0.2],
    [62.66, 36.07, 57.1],
    [40.02, 10.41, -45.96],
    [51.12, 48.24, 16.25],
    [30.33, 22.98, -21.59],
    [72.53, -23.71, 57.26],
    [71.94, 19.36, 67.86],
    [28.78, 14.18, -50.3],
    [55.26, -38.34, 31.37],
    [42.1, 53.38, 28.19],
    [81.73, 4.04, 79.82],
    [51.94, 49.99, -14.57],
    [51.04, -28.63, -28.64],
    [96.54, -0.43, 1.19],
    [81.26, -0.64, -0.34],
    [66.77, -0.73, -0.5],
    [50.87, -0.15, -0.27],
    [35.66, -0.42, -1.23],
    [20.46, -0.08, -0.97],
  ],
  passport: [
    [37.97, 12.85, 13.91],
    [65.02, 17.74, 18.11],
    [49.77, -4.84, -21.69],
    [43.17, -11.67, 22.6],
    [55.1, 8.05, -23.67],
    [70.35, -33.88, 0.59],
    [62.49, 36.97, 57.54],
    [40.66, 10.75, -43.97],
    [51.42, 47.84, 16.23],
    [31.23, 21.99, -20.38],
    [72.29, -22.39, 57.15],
    [71.99, 20.04, 67.24],
    [28.9, 11.61, -47.53],
    [55.79, -38.1, 32.76],
    [42.32, 50.65, 27.81],
    [81.4, 3.72, 80.59],
    [52.35, 49.54, -13.47],
    [50.74, -29.4, -26.41],
    [96.26, -0.69, 4.21],
    [81.76, -0.21, 0.97],
    [67.22, -0.57, 0.36],
    [51.06, -0.36, 0.48],
    [36.3, -0.57, -0.3],
    [21.28, 0.26, 0.05],
  ],
};

/**
 * Centre-to-centre distance of neighbouring patches, mm. Classic: PlantCV's chip width of 40 mm
 * (`plantcv.transform.detect_color_card`, `color_chip_size="classic"`) times ArgyllCMS's pitch over
 * chip width of 52.5 / 46 (`ref/ColorChecker.cht`): 45.65 mm. Passport: ArgyllCMS's
 * `ref/ColorCheckerPassport.cht` grid of the classic page, 15.0 mm (chips 12.4 mm; PlantCV: 12 mm).
 * These are nominal: a user whose card differs gives `pxPerCm` instead (it wins, see the bruise README).
 */
export const PATCH_PITCH_MM: Record<ColourCardKind, number> = { classic: 45.65, passport: 15.0 };

/** Patch side over pitch (the black gaps between the chips): the Argyll chart files' ratios. */
export const CHIP_FRACTION: Record<ColourCardKind, number> = { classic: 46 / 52.5, passport: 12.4 / 15 };
