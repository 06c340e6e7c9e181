import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { untranslated } from './i18n-helpers.ts';

/** Opens a page, waits for its heading, saves a screenshot to /tmp/units-<shot>.png and checks no English is left. */
async function checkPage(e2e: E2E, [path, heading, shot]: readonly [string, string, string], ignore: string[] = []) {
  await e2e.page.goto(e2e.url(path));
  await e2e.page.getByRole('heading', { name: heading }).first().waitFor();
  await e2e.page.screenshot({ path: `/tmp/units-${shot}.png`, fullPage: true });
  expect(await untranslated(e2e, ignore), path).toEqual([]);
}

describe('Thai and English in the web app', () => {
  let e2e: E2E;
  let user: { username: string; email: string; organization: string };
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('English by default; the switch on a public page turns it Thai, kept across reloads and pages', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/aboutus'));
    await page.getByRole('heading', { name: 'What it does' }).waitFor();
    const sw = page.getByRole('group', { name: 'Language / ภาษา' });
    expect(await sw.getByRole('button').allInnerTexts()).toEqual(['English', 'ไทย']);
    expect(await sw.getByRole('button', { name: 'English' }).getAttribute('aria-pressed')).toBe('true');
    // at the end of the page, below its content: it covers none of it (on a desktop screen too)
    const placed = await page.evaluate(() => {
      const el = document.querySelector('.language-switch')!;
      const main = document.querySelector('main')!;
      return {
        position: getComputedStyle(el).position,
        top: el.getBoundingClientRect().top + scrollY,
        mainBottom: main.getBoundingClientRect().bottom + scrollY,
      };
    });
    expect(placed.position).toBe('absolute');
    expect(placed.top).toBeGreaterThanOrEqual(placed.mainBottom);

    await sw.getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('heading', { name: 'ทำอะไรได้บ้าง' }).waitFor();
    expect(await page.evaluate(() => [localStorage.getItem('language'), document.documentElement.lang])).toEqual([
      'th',
      'th',
    ]);
    await page.reload();
    await page.getByRole('heading', { name: 'ทำอะไรได้บ้าง' }).waitFor();
    expect(await page.getByRole('link', { name: 'สมัครสมาชิก' }).first().isVisible()).toBe(true);
    await page.screenshot({ path: '/tmp/units-aboutus.png', fullPage: true });
    expect(await untranslated(e2e)).toEqual([]);

    for (const screen of [
      ['/contactus', 'ติดต่อเรา', 'contactus'],
      ['/forgotpassword', 'ลืมรหัสผ่าน', 'forgotpassword'],
      ['/signin', 'เข้าสู่ระบบ', 'signin'],
      ['/signup', 'สมัครสมาชิก', 'signup'],
      ['/verify', 'การยืนยัน', 'verify'],
      ['/changepassword', 'เปลี่ยนรหัสผ่าน', 'changepassword'],
      ['/k-means', 'การจัดกลุ่มแบบ K-Means', 'kmeans'],
    ] as const)
      await checkPage(e2e, screen);
  });

  it('the signed-in screens in Thai, with Thai dates; back to English gives the spec texts exactly', async () => {
    const { page } = e2e;
    ({ user } = await signInViaApi(e2e));
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    const mine = [user.username, user.email, user.organization];
    for (const screen of [
      ['/home', 'ยินดีต้อนรับสู่ Mango Bruise Tracker!', 'home'],
      ['/bruise', 'คำนวณพื้นที่รอยช้ำ', 'bruise'],
      ['/analysis', 'วิเคราะห์คุณลักษณะ', 'analysis'],
      ['/resize', 'ปรับขนาดภาพ', 'resize'],
      ['/removebackground', 'ลบพื้นหลัง', 'removebackground'],
      ['/crop', 'เครื่องมือครอปภาพ', 'crop'],
      ['/results', 'ผลลัพธ์', 'results'],
      ['/profile', 'โปรไฟล์', 'profile'],
      ['/profile/changepassword', 'เปลี่ยนรหัสผ่าน', 'profile-password'],
      ['/showarea/accuracy', 'ผลพื้นที่รอยช้ำ', 'showarea'],
      ['/profile/edit', 'แก้ไขโปรไฟล์', 'profile-edit'],
      ['/apikeys', 'คีย์ API', 'apikeys'],
      ['/aboutusmain', 'เกี่ยวกับ Mango Bruise Tracker', 'aboutusmain'],
      ['/contactusmain', 'ติดต่อเรา', 'contactusmain'],
      ['/newpassword', 'อัปเดตรหัสผ่านของคุณแล้ว', 'newpassword'],
    ] as const)
      await checkPage(e2e, screen, mine);
    // the history table: a Thai date (Buddhist era) and Thai column names
    await page.goto(e2e.url('/dashboard'));
    await page.getByRole('heading', { name: 'ประวัติการดำเนินการ' }).waitFor();
    await page.screenshot({ path: '/tmp/units-dashboard.png', fullPage: true });
    expect(await untranslated(e2e, mine)).toEqual([]);

    // English again: the texts of product-spec.md, exactly
    await page.getByRole('group', { name: 'Language / ภาษา' }).getByRole('button', { name: 'English' }).click();
    await page.goto(e2e.url('/bruise'));
    await page.getByRole('heading', { name: 'Bruised Area Calculation' }).waitFor();
    await page.getByRole('button', { name: 'Process' }).click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Please select files to upload.');
    await page.getByRole('group', { name: 'Language / ภาษา' }).getByRole('button', { name: 'ไทย' }).click();
    await page.getByRole('button', { name: 'ประมวลผล' }).click();
    await expect.poll(() => e2e.alerts.at(-1)).toBe('โปรดเลือกไฟล์ที่จะอัปโหลด');
    expect(await page.getByRole('navigation', { name: 'เมนูหลัก' }).getByRole('link').allInnerTexts()).toEqual([
      'หน้าแรก',
      'ปรับขนาด',
      'ลบพื้นหลัง',
      'คำนวณพื้นที่รอยช้ำ',
      'วิเคราะห์คุณลักษณะ',
      'ผลลัพธ์',
      'เกี่ยวกับเรา',
      'ติดต่อเรา',
    ]);
  });
});
