/**
 * Thai of core's report and chart words (report.ts, series-report.ts, plots.ts), keyed by their
 * English text: the web app's catalogue format (web/src/i18n/th.ts spreads it, so the run page, the
 * compare page and the reports read alike). A plugin's own words are its catalogue
 * (`PlotFields.translations`). Figures are never translated.
 */
import type { Catalogue } from './i18n.ts';

export const REPORT_TH: Catalogue = {
  // the report page (report.ts)
  'Mango Bruise Tracker · {{n}} photo(s) · {{created}}': 'Mango Bruise Tracker · {{n}} รูป · {{created}}',
  Overlays: 'ภาพซ้อน',
  Provenance: 'ที่มาของข้อมูล',
  'photo {{name}}': 'รูป {{name}}',
  'overlay of {{name}}': 'ภาพซ้อนของ {{name}}',
  'No overlay thumbnails in this results file.': 'ไฟล์ผลลัพธ์นี้ไม่มีภาพซ้อนขนาดย่อ',
  Software: 'ซอฟต์แวร์',
  'stored run': 'ผลการประมวลผลที่บันทึกไว้',
  'command line': 'บรรทัดคำสั่ง',
  Created: 'สร้างเมื่อ',
  Method: 'วิธีการ',
  'ran: {{method}}': 'ที่ใช้จริง: {{method}}',
  'Plugin version': 'รุ่นของปลั๊กอิน',
  Model: 'โมเดล',
  'none (classical)': 'ไม่มี (วิธีดั้งเดิม)',
  'Options and inputs (sha256 of every file read):': 'ตัวเลือกและข้อมูลนำเข้า (sha256 ของทุกไฟล์ที่อ่าน):',
  // the series report (series-report.ts)
  'Series report – {{n}} runs': 'รายงานอนุกรม – {{n}} ผลการประมวลผล',
  'Mango Bruise Tracker · {{n}} photo(s) of {{runs}} run(s) over {{time}} · {{created}}':
    'Mango Bruise Tracker · {{n}} รูป จาก {{runs}} ผลการประมวลผล ตาม {{time}} · {{created}}',
  Runs: 'ผลการประมวลผล',
  Run: 'ผลการประมวลผล',
  'Run date': 'วันที่ประมวลผล',
  Photos: 'รูปภาพ',
  'Scored (n)': 'วิเคราะห์แล้ว (n)',
  Median: 'มัธยฐาน',
  Range: 'พิสัย',
  Series: 'อนุกรม',
  'Points of the series': 'จุดของอนุกรม',
  Rows: 'แถวข้อมูล',
  'Each fruit_id is one line over {{time}}.': 'แต่ละ fruit_id เป็นหนึ่งเส้นตาม {{time}}',
  'No photo has a fruit_id: one line per group over {{time}}.': 'ไม่มีรูปใดมี fruit_id: แสดงหนึ่งเส้นต่อกลุ่มตาม {{time}}',
  'The time of a photo without a day is its run’s date.': 'รูปที่ไม่มี day ใช้วันที่ของผลการประมวลผล',
  'coloured by {{column}}': 'แยกสีตาม {{column}}',
  'Each 95 % interval of a mean is Student’s t, clipped to the figure’s range ({{low}} to {{high}}).':
    'ช่วงความเชื่อมั่น 95 % ของค่าเฉลี่ยแต่ละช่วงคำนวณจากการแจกแจง t ของ Student และตัดให้อยู่ในช่วงที่ค่านั้นเป็นไปได้ ({{low}} ถึง {{high}})',
  // the charts' and tables' own words (plots.ts)
  '(none)': '(ไม่มี)',
  'all photos': 'ทุกรูป',
  Photo: 'รูป',
  Group: 'กลุ่ม',
  '95 % interval from': 'ช่วงความเชื่อมั่น 95 % จาก',
  '95 % interval to': 'ช่วงความเชื่อมั่น 95 % ถึง',
  '95 % interval of the mean': 'ช่วงความเชื่อมั่น 95 % ของค่าเฉลี่ย',
  Quartiles: 'ควอร์ไทล์',
  '{{low}} to {{high}}': '{{low}} ถึง {{high}}',
};
