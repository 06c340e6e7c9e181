import { SHARED_WORDING } from '@mango/core/wording';

/** The widget's user-visible text. Add a locale by adding one object with the same keys. */
export interface WidgetStrings {
  label: string;
  prompt: string;
  hint: string;
  dropping: string;
  uploading: (percent: number) => string;
  analysing: string;
  analysingLocal: (done: number, total: number) => string;
  done: (count: number) => string;
  error: (message: string) => string;
  noImages: string;
  networkError: string;
  serverError: (status: number) => string;
  missingKey: string;
  bruise: string;
  healthy: string;
  fruitPixels: string;
  fruits: string;
  fruit: string;
  bruisePercent: string;
  lesions: string;
  pixels: string;
  area: string;
  overlayAlt: (filename: string) => string;
  localNote: string;
  /** the heading of a photo's photo-quality flags (their reasons are the plugin's words) */
  quality: (count: number) => string;
  /** a ColorChecker found in the photo (colour card option auto): what it corrected, as the web app words it */
  colourCard: string;
  cardFound: (patches: number, before: string, after: string) => string;
  /** the scale read from the card's patch pitch */
  scale: string;
  scaleFromCard: (pxPerCm: string) => string;
}

const en: WidgetStrings = {
  label: 'Mango bruise measurement',
  prompt: 'Drop mango photos here, or press to choose',
  hint: 'JPEG, PNG or WebP',
  dropping: 'Release to measure',
  uploading: (p) => `Uploading... ${p}%`,
  analysing: 'Measuring bruises...',
  analysingLocal: (done, total) => `Measuring bruises on this device... ${done} of ${total}`,
  done: (n) => `Measured ${n} photo${n === 1 ? '' : 's'}.`,
  error: (m) => `Error: ${m}`,
  noImages: 'Choose JPEG, PNG or WebP photos.',
  networkError: 'The bruise service could not be reached (network error, or this site is not allowed to use the key).',
  serverError: (s) => `The bruise service answered with status ${s}.`,
  missingKey: 'The widget has no api-key attribute.',
  bruise: SHARED_WORDING.en.bruised,
  healthy: SHARED_WORDING.en.healthy,
  fruitPixels: SHARED_WORDING.en.fruitPixels,
  fruits: 'Per fruit',
  fruit: 'Fruit',
  bruisePercent: 'Bruised %',
  lesions: SHARED_WORDING.en.lesions,
  pixels: SHARED_WORDING.en.pixels,
  area: 'Area (cm²)',
  overlayAlt: (f) => `Bruise overlay of ${f}: bruised areas are highlighted`,
  localNote: 'Photos are measured in this browser and never uploaded.',
  quality: (n) => `Photo quality: ${n} warning${n === 1 ? '' : 's'}`,
  colourCard: 'Colour card',
  cardFound: (p, before, after) => `found: ${p} patches, colour difference ${before} → ${after} (median ΔE2000)`,
  scale: 'Scale',
  scaleFromCard: (x) => `${x} px/cm, from the colour card`,
};

const th: WidgetStrings = {
  label: 'การวัดรอยช้ำของมะม่วง',
  prompt: 'วางรูปมะม่วงที่นี่ หรือกดเพื่อเลือกไฟล์',
  hint: 'JPEG, PNG หรือ WebP',
  dropping: 'ปล่อยเพื่อวัด',
  uploading: (p) => `กำลังอัปโหลด... ${p}%`,
  analysing: 'กำลังวัดรอยช้ำ...',
  analysingLocal: (done, total) => `กำลังวัดรอยช้ำบนอุปกรณ์นี้... ${done} จาก ${total}`,
  done: (n) => `วัดแล้ว ${n} รูป`,
  error: (m) => `ข้อผิดพลาด: ${m}`,
  noImages: 'โปรดเลือกรูป JPEG, PNG หรือ WebP',
  networkError: 'ไม่สามารถติดต่อบริการวัดรอยช้ำได้ (เครือข่ายขัดข้อง หรือเว็บไซต์นี้ไม่ได้รับอนุญาตให้ใช้คีย์)',
  serverError: (s) => `บริการวัดรอยช้ำตอบกลับด้วยสถานะ ${s}`,
  missingKey: 'วิดเจ็ตไม่มีแอตทริบิวต์ api-key',
  bruise: SHARED_WORDING.th.bruised,
  healthy: SHARED_WORDING.th.healthy,
  fruitPixels: SHARED_WORDING.th.fruitPixels,
  fruits: 'รายผล',
  fruit: 'ผลที่',
  bruisePercent: '% ช้ำ',
  lesions: SHARED_WORDING.th.lesions,
  pixels: SHARED_WORDING.th.pixels,
  area: 'พื้นที่ (ตร.ซม.)',
  overlayAlt: (f) => `ภาพซ้อนรอยช้ำของ ${f}: บริเวณที่ช้ำถูกเน้นสี`,
  localNote: 'รูปถูกวัดในเบราว์เซอร์นี้และไม่ถูกอัปโหลด',
  quality: (n) => `คุณภาพภาพถ่าย: ข้อควรระวัง ${n} ข้อ`,
  colourCard: 'แผ่นเทียบสี',
  cardFound: (p, before, after) => `พบ: ${p} ช่องสี ความต่างของสี ${before} → ${after} (ค่ามัธยฐาน ΔE2000)`,
  scale: 'มาตราส่วน',
  scaleFromCard: (x) => `${x} พิกเซล/ซม. จากแผ่นเทียบสี`,
};

export const LOCALES: Record<string, WidgetStrings> = { en, th };

/** 'th-TH' -> th; anything unknown -> en. */
export function stringsFor(locale: string | null | undefined): WidgetStrings {
  const base = (locale ?? '').toLowerCase().split(/[-_]/)[0];
  return LOCALES[base] ?? en;
}

/** Percentages are shown with two decimals, as everywhere else in the product. */
export function formatPercent(value: number): string {
  return `${value.toFixed(2)}%`;
}

/** Pixel counts with thousands separators (313,329). */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}
