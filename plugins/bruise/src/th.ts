/**
 * Thai of the bruise plugin's chart and report words (plots.ts, report.ts), keyed by their English
 * text: the web app's catalogue format (core/src/i18n.ts). Declared with the plots
 * (`BRUISE_PLOTS.translations`), so the series report finds it, and spread by web/src/i18n/th.ts.
 */
import type { Catalogue } from '@mango/core/i18n';
import { SHARED_WORDING } from '@mango/core/wording';

const shared = SHARED_WORDING.th;

/** How the report's box plots are drawn (core's `intervalNote` follows: the interval's bounds). */
export const METHOD_NOTE =
  'Boxes: quartiles, whiskers to 1.5 times the interquartile range; dots: photos; diamonds and bars: each group’s mean with its 95 % confidence interval (Student’s t).';

export const BRUISE_TH: Catalogue = {
  // the photo-quality flags' reasons (quality-text.ts FLAG_TEXTS)
  "Out of focus: the fruit's outline is blurred over {{value}} of its diameter (limit {{threshold}}).":
    'ภาพไม่ชัด: ขอบของผลเบลอเป็นระยะ {{value}} ของเส้นผ่านศูนย์กลาง (เกณฑ์ {{threshold}})',
  'Over-exposed: {{value}} of the fruit is clipped white (limit {{threshold}}).':
    'แสงมากเกินไป: {{value}} ของผลเป็นสีขาวจนไม่เห็นรายละเอียด (เกณฑ์ {{threshold}})',
  'Under-exposed: {{value}} of the fruit is clipped black (limit {{threshold}}).':
    'แสงน้อยเกินไป: {{value}} ของผลเป็นสีดำสนิท (เกณฑ์ {{threshold}})',
  'A fruit is cut by the frame edge along {{value}} of its diameter (limit {{threshold}}).':
    'ผลถูกขอบภาพตัดไปเป็นระยะ {{value}} ของเส้นผ่านศูนย์กลาง (เกณฑ์ {{threshold}})',
  'Fruit too small: {{value}} px across (at least {{threshold}} px needed).':
    'ผลเล็กเกินไป: กว้าง {{value}} px (ต้องมีอย่างน้อย {{threshold}} px)',
  'Heavy JPEG compression: quality {{value}} (at least {{threshold}} needed).':
    'บีบอัด JPEG มากเกินไป: คุณภาพ {{value}} (ต้องมีอย่างน้อย {{threshold}})',
  "Colour cast with no colour card: the background's greys read a light {{value}} mired away from daylight (limit {{threshold}}).":
    'สีเพี้ยนและไม่มีแผ่นเทียบสี: สีเทาของฉากหลังบอกว่าแสงต่างจากแสงกลางวัน {{value}} ไมเรด (เกณฑ์ {{threshold}})',
  // the charts (plots.ts)
  'Bruise % by {{column}}': '% รอยช้ำตาม {{column}}',
  'Bruise % of the photos': '% รอยช้ำของรูป',
  'bruise % of the fruit area': '% รอยช้ำของพื้นที่ผล',
  'Box plot of bruise % of {{n}} photos in {{groups}} groups by {{column}}.':
    'แผนภาพกล่องของ % รอยช้ำจาก {{n}} รูป ใน {{groups}} กลุ่ม ตาม {{column}}',
  '{{group}}: n = {{n}}, mean {{mean}} %, 95 % interval {{low}} to {{high}} %.':
    '{{group}}: n = {{n}}, ค่าเฉลี่ย {{mean}} %, ช่วงความเชื่อมั่น 95 % {{low}} ถึง {{high}} %',
  '{{group}}: n = {{n}}, mean {{mean}} % (no interval from one photo).':
    '{{group}}: n = {{n}}, ค่าเฉลี่ย {{mean}} % (รูปเดียว ไม่มีช่วงความเชื่อมั่น)',
  'Bruise %': '% รอยช้ำ',
  'Mean bruise %': '% รอยช้ำเฉลี่ย',
  'Bruise % over {{time}}, per fruit': '% รอยช้ำตาม {{time}} รายผล',
  'Mean bruise % over {{time}}, per group': '% รอยช้ำเฉลี่ยตาม {{time}} รายกลุ่ม',
  'Line chart of bruise % against {{time}}: {{lines}} lines ({{by}}), {{points}} points.':
    'แผนภูมิเส้นของ % รอยช้ำเทียบกับ {{time}}: {{lines}} เส้น ({{by}}), {{points}} จุด',
  'Lesion area against fruit area': 'พื้นที่รอยโรคเทียบกับพื้นที่ผล',
  'Scatter plot of {{n}} fruit: {{y}} against {{x}}.': 'แผนภาพการกระจายของ {{n}} ผล: {{y}} เทียบกับ {{x}}',
  'fruit area (cm²)': 'พื้นที่ผล (ซม.²)',
  'fruit area (pixels)': 'พื้นที่ผล (พิกเซล)',
  'lesion area (cm²)': 'พื้นที่รอยโรค (ซม.²)',
  'lesion area (pixels)': 'พื้นที่รอยโรค (พิกเซล)',
  Fruit: 'ผล',
  [METHOD_NOTE]:
    'กล่อง: ควอร์ไทล์ เส้นหนวดยาวถึง 1.5 เท่าของพิสัยระหว่างควอร์ไทล์; จุด: รูปแต่ละรูป; สี่เหลี่ยมข้าวหลามตัดและเส้น: ค่าเฉลี่ยของแต่ละกลุ่มพร้อมช่วงความเชื่อมั่น 95 % (การแจกแจง t ของ Student)',
  // the report (report.ts)
  'Bruise report': 'รายงานรอยช้ำ',
  'Bruise report – run {{id}}': 'รายงานรอยช้ำ – ผลการประมวลผล {{id}}',
  Summary: 'สรุป',
  'Photos (n)': 'จำนวนรูป (n)',
  'Median bruise %': 'มัธยฐาน % รอยช้ำ',
  '90th percentile bruise %': '% รอยช้ำ เปอร์เซ็นไทล์ที่ 90',
  'Share over {{threshold}} %': 'สัดส่วนที่เกิน {{threshold}} %',
  'Histogram of bruise %': 'ฮิสโทแกรมของ % รอยช้ำ',
  '{{count}} photo(s) with bruise {{label}} %': '{{count}} รูปที่มีรอยช้ำ {{label}} %',
  'Histogram of bruise % over {{n}} photos': 'ฮิสโทแกรมของ % รอยช้ำจาก {{n}} รูป',
  'bruise % of the photo (bins); bar height: number of photos': '% รอยช้ำของรูป (ช่วง); ความสูงของแท่ง: จำนวนรูป',
  Plots: 'แผนภูมิ',
  'Photos without a value in a column are in the group {{group}}.': 'รูปที่ไม่มีค่าในคอลัมน์อยู่ในกลุ่ม {{group}}',
  'Fruit pixels': shared.fruitPixels,
  Lesions: shared.lesions,
  'Non-bruise %': '% ไม่ช้ำ',
  'Colour difference (ΔE00)': 'ความต่างของสี (ΔE00)',
  'Fruit cm²': 'ผล (ตร.ซม.)',
  'Bruise cm²': 'รอยช้ำ (ตร.ซม.)',
  Grade: 'เกรด',
  'not accepted': 'ไม่ผ่าน',
  Accepted: 'ผ่าน',
  grades: 'เกรด',
  'Lot ({{grades}}): {{graded}} of {{count}} fruit graded': 'ล็อต ({{grades}}): ให้เกรดแล้ว {{graded}} จาก {{count}} ผล',
  'No fruit found in these photos.': 'ไม่พบผลมะม่วงในรูปเหล่านี้',
  'Photo quality': 'คุณภาพภาพถ่าย',
  'These results hold no photo-quality checks.': 'ผลลัพธ์นี้ไม่มีการตรวจคุณภาพภาพถ่าย',
  '{{passed}} of {{n}} photo(s) passed every check; {{flagged}} flagged.':
    '{{passed}} จาก {{n}} รูปผ่านการตรวจทุกข้อ; ถูกทำเครื่องหมาย {{flagged}} รูป',
  Flag: 'เครื่องหมาย',
  Why: 'สาเหตุ',
  Value: 'ค่า',
  Threshold: 'เกณฑ์',
  corrected: 'แก้ไขแล้ว',
  'model: {{value}} %': 'แบบจำลอง: {{value}} %',
};
