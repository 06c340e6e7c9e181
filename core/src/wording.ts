/**
 * Wording the web app and the bruise widget share, in each language they offer (en, th): one
 * place, so a term reads the same in both.
 */
export const SHARED_WORDING = {
  en: {
    fruitPixels: 'Fruit pixels',
    lesions: 'Lesions',
    pixels: 'Pixels',
    bruised: 'Bruised',
    healthy: 'Healthy',
  },
  th: {
    fruitPixels: 'พิกเซลของผล',
    lesions: 'จำนวนรอย',
    pixels: 'พิกเซล',
    bruised: 'ช้ำ',
    healthy: 'ปกติ',
  },
} as const;
