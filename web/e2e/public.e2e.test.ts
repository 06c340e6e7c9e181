import measured from '../src/measured.json';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

/** Unmeasured marketing figures of the original copy that must not come back. */
const UNMEASURED = [/95\s*%/, /\b10\s*x\b/i, /\b100\s*\+/, /\b10\s*\+\s*clients/i];
const WRONG_STACK = ['Python', 'PyTorch', 'TensorFlow'];

async function bodyText(e2e: E2E) {
  return e2e.page.locator('body').innerText();
}

describe('public pages', () => {
  let e2e: E2E;
  beforeAll(async () => {
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('/aboutus: sign-in, sign-up, contact, value cards, the real stack, no unmeasured figures', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/aboutus'));
    const main = page.getByRole('main');
    await main.getByRole('link', { name: 'Sign-In' }).waitFor();
    expect(await main.getByRole('link', { name: 'Sign-In' }).getAttribute('href')).toBe('/signin');
    expect(await main.getByRole('link', { name: 'Sign-Up' }).getAttribute('href')).toBe('/signup');
    expect(await main.getByRole('link', { name: 'Contact Our Team' }).getAttribute('href')).toBe('/contactus');
    expect(await main.getByRole('link', { name: "Let's get started" }).getAttribute('href')).toBe('/signin');
    for (const title of ['Precision Detection', 'Fast Analysis', 'Data-Driven Insights']) {
      expect(await main.getByRole('heading', { name: title }).count()).toBe(1);
    }
    const tech = await page.locator('.tech-list h3').allInnerTexts();
    expect(tech).toEqual(['TypeScript', 'React', 'Node.js', 'Checked feature definitions', 'ONNX Runtime']);
    const text = await bodyText(e2e);
    expect(text).toContain('scikit-image');
    for (const re of UNMEASURED) expect(text).not.toMatch(re);
    for (const word of WRONG_STACK) expect(text).not.toContain(word);
    // Only the figures of measured.json are shown, each with how it was measured.
    expect(await page.getByRole('heading', { name: 'Measured results' }).count()).toBe(1);
    const figures = measured.stats;
    for (const f of figures) {
      expect(text).toContain(f.value);
      expect(text).toContain(f.note);
    }
  });

  it('/contactus: email, phone with support hours, lab address in Thailand, social cards', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/contactus'));
    const main = page.getByRole('main');
    await main.getByRole('heading', { name: 'Lab Address' }).waitFor();
    for (const title of ['Email', 'Phone'])
      expect(await main.getByRole('heading', { name: title, exact: true }).count()).toBe(1);
    expect(await main.locator('.contact-card address').innerText()).toContain('Thailand');
    expect(await main.innerText()).toContain('Mon-Fri 9am-5pm (GMT+7)');
    const facebook = main.getByRole('link', { name: 'Visit our Facebook page' });
    expect(await facebook.getAttribute('target')).toBe('_blank');
    expect(await facebook.getAttribute('rel')).toContain('noopener');
    for (const name of ['Instagram', 'LinkedIn']) {
      const card = main.locator('.social-card', { has: page.getByRole('heading', { name }) });
      expect(await card.innerText()).toContain('Coming soon');
      expect(await card.locator('a').count()).toBe(0);
    }
    expect(await main.getByRole('link', { name: "Let's get started" }).getAttribute('href')).toBe('/signin');
    const text = await bodyText(e2e);
    for (const re of UNMEASURED) expect(text).not.toMatch(re);
  });

  it('/aboutusmain and /contactusmain: signed-in frame, demo and tool buttons', async () => {
    await signInViaApi(e2e);
    const { page } = e2e;
    await page.goto(e2e.url('/aboutusmain'));
    const main = page.getByRole('main');
    await main.getByRole('link', { name: 'Try Our Demo' }).waitFor();
    expect(await main.getByRole('link', { name: 'Try Our Demo' }).getAttribute('href')).toBe('/bruise');
    expect(await main.getByRole('link', { name: 'Contact Our Team' }).getAttribute('href')).toBe('/contactusmain');
    expect(await main.getByRole('link', { name: "Let's get started" }).getAttribute('href')).toBe('/analysis');
    expect(await page.getByRole('button', { name: 'Profile menu' }).count()).toBe(1);
    let text = await bodyText(e2e);
    for (const re of UNMEASURED) expect(text).not.toMatch(re);
    for (const word of WRONG_STACK) expect(text).not.toContain(word);

    await page.goto(e2e.url('/contactusmain'));
    await main.getByRole('heading', { name: 'Email Support' }).waitFor();
    expect(await main.getByRole('heading', { name: 'Phone Support' }).count()).toBe(1);
    expect(await main.getByRole('link', { name: 'Bruised Area Calculation' }).getAttribute('href')).toBe('/bruise');
    expect(await main.getByRole('link', { name: 'Feature Analysis' }).getAttribute('href')).toBe('/analysis');
    text = await bodyText(e2e);
    for (const re of UNMEASURED) expect(text).not.toMatch(re);
  });

  it('footer: lab address in Thailand, links and support hours', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/aboutus'));
    const footer = page.getByRole('contentinfo');
    await footer.waitFor();
    expect(await footer.locator('address').innerText()).toContain('Thailand');
    expect(await footer.innerText()).toContain('Mon-Fri 9am-5pm (GMT+7)');
    expect(await footer.getByRole('link', { name: 'Contact Us' }).getAttribute('href')).toBe('/contactusmain');
  });
});
