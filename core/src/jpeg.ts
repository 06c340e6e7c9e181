/**
 * How hard a JPEG was compressed, read from its bytes (browser-safe): the quality setting of the
 * IJG / libjpeg scale (1-100) that best matches the file's luminance quantisation table. Cameras,
 * phones, sharp, Pillow, OpenCV and browsers all scale the IJG base tables (ITU-T T.81, Annex K),
 * so the estimate is exact for them; for other tables it is the IJG quality of the same average step.
 */

/** ITU-T T.81 Annex K.1 luminance table, in natural (row-major) order. */
const IJG_LUMINANCE = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
];
/** Natural index of the k-th entry in zig-zag order: the order a DQT segment stores a table in. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
];
const IJG_SUM = IJG_LUMINANCE.reduce((a, b) => a + b, 0);

/**
 * The IJG quality (1-100) of a JPEG's luminance quantisation table (table 0), or null when the
 * bytes are not a JPEG or hold no table before the first scan. Entries an 8-bit table clipped at 255
 * are left out of the comparison.
 */
export function jpegQuality(bytes: Uint8Array): number | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return null;
    const marker = bytes[p + 1];
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      p += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null; // start of scan / end: no table met
    const length = (bytes[p + 2] << 8) | bytes[p + 3];
    if (length < 2 || p + 2 + length > bytes.length) return null;
    if (marker === 0xdb) {
      let q = p + 4;
      const end = p + 2 + length;
      while (q < end) {
        const precision = bytes[q] >> 4;
        const id = bytes[q] & 15;
        const size = precision ? 128 : 64;
        if (q + 1 + size > end) return null;
        if (id === 0) {
          // Entries an 8-bit table clipped at 255 (quality below about 25) say nothing of the
          // scale: the others are compared with their base values.
          let sum = 0;
          let base = 0;
          let all = 0;
          for (let i = 0; i < 64; i++) {
            const v = precision ? (bytes[q + 1 + 2 * i] << 8) | bytes[q + 2 + 2 * i] : bytes[q + 1 + i];
            all += v;
            if (precision || v < 255) {
              sum += v;
              base += IJG_LUMINANCE[ZIGZAG[i]];
            }
          }
          return qualityOfScale(base > 0 ? (100 * sum) / base : (100 * all) / IJG_SUM);
        }
        q += 1 + size;
      }
    }
    p += 2 + length;
  }
  return null;
}

/** libjpeg's jpeg_quality_scaling inverted: scale 100 % is quality 50; 1 % (all ones) is 100. */
function qualityOfScale(scale: number): number {
  const q = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.max(1, Math.min(100, Math.round(q)));
}
