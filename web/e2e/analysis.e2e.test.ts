import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { FEATURE_VALUE_NAMES } from '@mango/plugin-features';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { signInViaApi, startE2E, type E2E } from './harness.ts';

const shared = sharedDir();
if (!shared) console.warn(`analysis e2e: ${SHARED_MISSING}`);
const photos = shared
  ? ['alternaria_001.jpg', 'healthy_001.jpg'].map((n) =>
      join(shared, 'data/bruise-dev/senmango_real_lesions/images', n),
    )
  : [];

/** The same formatting rule as the page, written out independently. */
const shown = (v: number) => (v !== 0 && Math.abs(v) < 1e-4 ? v.toPrecision(5) : v.toFixed(4));

describe.skipIf(!shared)('Feature Analysis pages', () => {
  let e2e: E2E;
  let token = '';
  beforeAll(async () => {
    e2e = await startE2E();
    token = (await signInViaApi(e2e)).tokens.accessToken;
  });
  afterAll(async () => {
    await e2e?.close();
  });

  const summary = () => e2e.page.getByTestId('selected-summary').innerText();

  it('filters, selects and summarises the 13 features', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByRole('heading', { name: 'Feature Analysis' }).waitFor();
    // color tab first, with its four features and their descriptions
    const items = page.locator('.feature-item');
    expect(await items.locator('.feature-name').allInnerTexts()).toEqual([
      'RGB Color Space',
      'HSV Color Space',
      'LAB Color Space',
      'Grayscale Intensity',
    ]);
    expect(await items.locator('.feature-desc').count()).toBe(4);
    // search by description, case-insensitive, within the current category only
    await page.getByPlaceholder('Search features...').fill('HUE');
    expect(await items.locator('.feature-name').allInnerTexts()).toEqual(['HSV Color Space']);
    await page.getByRole('tab', { name: 'Texture' }).click();
    expect(await items.count()).toBe(0);
    await page.getByPlaceholder('Search features...').fill('gabor');
    expect(await items.locator('.feature-name').allInnerTexts()).toEqual(['Gabor Filters']);
    await page.getByPlaceholder('Search features...').fill('');
    expect(await items.count()).toBe(4);

    expect(await summary()).toContain('Selected features (0)');
    await page.getByRole('button', { name: 'Select All Categories' }).click();
    expect(await summary()).toBe(
      'Selected features (13): RGB Color Space, HSV Color Space, LAB Color Space, Grayscale Intensity, GLCM Texture...',
    );
    await page.getByRole('button', { name: 'Deselect Category' }).click();
    expect(await summary()).toContain('Selected features (9)');
    await page.getByRole('button', { name: 'Deselect All' }).click();
    expect(await summary()).toContain('Selected features (0)');
    await page.getByRole('tab', { name: 'Shape' }).click();
    await page.getByRole('button', { name: 'Select Category', exact: true }).click();
    expect(await summary()).toBe('Selected features (3): Eccentricity, Area, Perimeter');
    await page.getByLabel('Eccentricity').click();
    await page.getByLabel('Perimeter').uncheck();
    expect(await summary()).toBe('Selected features (1): Area');
    await page.screenshot({ path: '/tmp/e2e-shots/analysis.png', fullPage: true });
  });

  it('alerts when images or features are missing, and when the call fails', async () => {
    const { page, alerts } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect.poll(() => alerts.at(-1)).toBe('Please select at least one image to upload.');
    await page.getByTestId('file-input').setInputFiles(photos[0]);
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect.poll(() => alerts.at(-1)).toBe('Please select at least one feature to analyze.');

    await page.route('**/api-py/python/analyze', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"detail":"boom"}' }),
    );
    await page.getByLabel('RGB Color Space').check();
    await page.getByRole('button', { name: 'Analyze' }).click();
    await expect.poll(() => alerts.at(-1)).toBe('Error processing the image.');
    expect(new URL(page.url()).pathname).toBe('/analysis');
    await page.unroute('**/api-py/python/analyze');
  });

  it('sends isolate=true only when the option is ticked', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.getByTestId('file-input').setInputFiles(photos[0]);
    await page.getByLabel('RGB Color Space').check();
    await page.getByLabel('Isolate fruit (remove background first)').check();
    const bodies: string[] = [];
    await page.route('**/api-py/python/analyze', async (route) => {
      bodies.push(route.request().postDataBuffer()?.toString('latin1') ?? '');
      await route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify([{ image_name: 'alternaria_001.jpg', features: { rgb: { mean_R: 1 } } }]),
      });
    });
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result');
    expect(bodies[0]).toMatch(/name="isolate"\r\n\r\ntrue\r\n/);
    expect(bodies[0]).toMatch(/name="features"\r\n\r\n\["rgb"\]\r\n/);
    await page.unroute('**/api-py/python/analyze');
  });

  it('analyses two photos, shows the values, exports the CSV and comes back', async () => {
    const { page, alerts } = e2e;
    const alertsBefore = alerts.length;
    await page.goto(e2e.url('/analysis'));
    await page.getByLabel('RGB Color Space').check();
    await page.getByRole('tab', { name: 'Shape' }).click();
    await page.getByLabel('Area').check();
    await page.getByTestId('file-input').setInputFiles(photos);
    await page.getByRole('button', { name: 'Analyze' }).click();
    await page.waitForURL('**/analysis/result', { timeout: 60_000 });
    await page.getByRole('heading', { name: 'Feature Analysis Results' }).waitFor();
    expect(alerts.length).toBe(alertsBefore);

    const valueNames = [...FEATURE_VALUE_NAMES.rgb, ...FEATURE_VALUE_NAMES.area];
    const headers = await page.locator('table.feature-table thead tr').nth(1).locator('th').allInnerTexts();
    expect(headers).toEqual(valueNames);
    const rows = page.getByTestId('feature-row');
    expect(await rows.count()).toBe(2);

    // the shown values are the API's values with the display rule
    const form = new FormData();
    for (const p of photos) form.append('images', new Blob([readFileSync(p)]), basename(p));
    form.append('features', JSON.stringify(['rgb', 'area']));
    const api = (await (
      await fetch(e2e.url('/api-py/python/analyze'), {
        method: 'POST',
        body: form,
        headers: { Authorization: `Bearer ${token}` },
      })
    ).json()) as { image_name: string; features: Record<string, Record<string, number>> }[];
    for (let r = 0; r < 2; r++) {
      const cells = await rows.nth(r).locator('td').allInnerTexts();
      expect(await rows.nth(r).locator('th').innerText()).toBe(api[r].image_name);
      const expected = valueNames.map((n) => shown(api[r].features[n in api[r].features.rgb ? 'rgb' : 'area'][n]));
      expect(cells).toEqual(expected);
      for (const c of cells) expect(c).toMatch(/^-?\d+\.\d{4}$|e|^-?0\.0000\d+$/);
    }

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('feature_analysis_results.csv');
    const csv = Papa.parse<string[]>(readFileSync((await download.path())!, 'utf8'), { skipEmptyLines: true }).data;
    expect(csv[0]).toEqual(['Image', ...valueNames]);
    expect(csv).toHaveLength(3);
    expect(Number(csv[1][1])).toBe(api[0].features.rgb.mean_R);

    await page.waitForURL('**/exportfeature');
    await page.getByText('Your CSV has been exported successfully').waitFor();
    await page.screenshot({ path: '/tmp/e2e-shots/exportfeature.png' });
    await page.getByRole('button', { name: 'Done' }).click();
    await page.waitForURL('**/analysis/result');
    await expect.poll(() => page.getByTestId('feature-row').count()).toBe(2);
    await page.screenshot({ path: '/tmp/e2e-shots/analysis-result.png', fullPage: true });
  });

  it('shows a per-image error in its row and refuses an empty export', async () => {
    const { page, alerts } = e2e;
    await page.goto(e2e.url('/analysis'));
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(e2e.url('/analysis/result'));
    await page.getByText('No information available').waitFor();
    await page.getByRole('button', { name: 'Export CSV' }).click();
    await expect.poll(() => alerts.at(-1)).toBe('No data available to export');

    await page.goto(e2e.url('/analysis'));
    await page.getByLabel('RGB Color Space').check();
    await page.getByTestId('file-input').setInputFiles(photos[0]);
    await page.route('**/api-py/python/analyze', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify([{ image_name: 'alternaria_001.jpg', error: 'no foreground pixels' }]),
      }),
    );
    await page.getByRole('button', { name: 'Analyze' }).click();
    // The batch carries on (issue 27 item 5): the page stays and lists the photo with its reason.
    const failed = page.getByTestId('failed-photo');
    await expect.poll(() => failed.count()).toBe(1);
    expect(await failed.first().innerText()).toMatch(/alternaria_001\.jpg\s*no foreground pixels/);
    expect(await page.getByTestId('failed-photos').innerText()).toContain('No photo could be scored.');
    await page.unroute('**/api-py/python/analyze');
  });

  it('takes images handed over as {url, name} and turns them into png files', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/analysis'));
    const dataUrl = `data:image/jpeg;base64,${readFileSync(photos[0]).toString('base64')}`;
    await page.evaluate((url) => {
      const state = { usr: { images: [{ url, name: 'handed.jpg' }] }, key: 'handover', idx: 1 };
      window.history.pushState(state, '', '/analysis');
      window.dispatchEvent(new PopStateEvent('popstate', { state }));
    }, dataUrl);
    await page.getByRole('list', { name: 'Selected files' }).getByText('handed.png').waitFor();
  });

  it('shows the scroll-to-top button after 200px, and after 300px on the results', async () => {
    const { page } = e2e;
    await page.setViewportSize({ width: 800, height: 400 });
    await page.goto(e2e.url('/analysis'));
    await page.getByRole('heading', { name: 'Feature Analysis' }).waitFor();
    expect(await page.getByRole('button', { name: 'Scroll to top' }).count()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 250));
    await page.getByRole('button', { name: 'Scroll to top' }).click();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);

    // the results page (kept in session storage) waits for 300px
    await page.setViewportSize({ width: 800, height: 300 });
    await page.goto(e2e.url('/analysis/result'));
    await page.getByTestId('feature-row').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 250));
    await page.waitForTimeout(100);
    expect(await page.getByRole('button', { name: 'Scroll to top' }).count()).toBe(0);
    await page.evaluate(() => window.scrollTo(0, 320));
    await page.getByRole('button', { name: 'Scroll to top' }).click();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
