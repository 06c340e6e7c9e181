import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, runPlugin } from '@mango/core';
import { nodeImages } from '@mango/core/node';
import { loadImageFile, repoRoot, sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import kmeans, { kmeansClassesFile, type KMeansClassesFile } from '@mango/plugin-kmeans';
import { startE2E, type E2E } from './harness.ts';

const FIXTURES = join(repoRoot, 'plugins/kmeans/fixtures');
const blobsPng = join(FIXTURES, 'blobs.png');
const blobsClasses = join(FIXTURES, 'blobs.classes.json');
const shared = sharedDir();
if (!shared) console.warn(`k-means e2e (shared photo): ${SHARED_MISSING}`);
const sharedPhoto = shared
  ? join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_1.jpg')
  : '';

/** The plugin run in Node on the same file and classes: what `mango kmeans` prints. */
async function nodeResult(imagePath: string, classes: KMeansClassesFile) {
  const image = await loadImageFile(imagePath);
  const out = await runPlugin(kmeans, image, { ...classes, labels: false }, createContext(nodeImages));
  return out.classes.map((c) => [c.name, `${c.percent}%`]);
}

describe('K-Means page', () => {
  let e2e: E2E;
  let dir = '';
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-kmeans-e2e-'));
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const runButton = () => e2e.page.getByRole('button', { name: 'Run K-Means Clustering' });
  const classButtons = () => e2e.page.getByRole('complementary', { name: 'Class manager' }).locator('.kmeans-class');
  /** 'name: N samples' per class button */
  const classSummary = () =>
    classButtons().evaluateAll((buttons) =>
      buttons.map(
        (b) =>
          `${b.querySelector('.kmeans-class-name')?.textContent}: ${b.querySelector('.kmeans-samples')?.textContent}`,
      ),
    );
  const tableRows = () =>
    e2e.page
      .getByTestId('kmeans-results')
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((r) => {
          const cells = r.querySelectorAll('td');
          return [cells[0].textContent?.trim(), cells[2].textContent?.trim()];
        }),
      );

  it('is public, with the navigation bar whose avatar opens an empty dropdown', async () => {
    const { page } = e2e;
    await page.goto(e2e.url('/k-means'));
    await page.getByRole('heading', { name: 'K-Means Clustering' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/k-means');
    await page.getByRole('button', { name: 'Profile menu' }).click();
    const menu = page.getByRole('menu', { name: 'Profile' });
    expect(await menu.isVisible()).toBe(true);
    expect(await menu.locator('*').count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).locator('[aria-current]').count()).toBe(0);
    await page.getByRole('button', { name: 'Profile menu' }).click();
    expect(await menu.count()).toBe(0);
    expect(await runButton().isDisabled()).toBe(true);
  });

  it('refuses files that are not JPG or PNG, or over 5MB', async () => {
    const input = e2e.page.getByTestId('file-input');
    await input.setInputFiles({ name: 'leaf.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Unsupported file type. Please upload a JPG or PNG image.');
    await input.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(5242881) });
    await expect.poll(() => e2e.alerts.at(-1)).toBe('Image too large. Maximum allowed size is 5MB.');
    expect(e2e.alerts).toHaveLength(2);
    expect(await e2e.page.getByTestId('kmeans-stage').count()).toBe(0);
  });

  it('adds classes (empty names ignored, red by default) and draws samples only for a selected class', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: 'Add Class' }).click();
    await page.getByLabel('Class name').fill('   ');
    await page.getByRole('button', { name: 'Add Class' }).click();
    expect(await classButtons().count()).toBe(0);
    expect(await page.getByLabel('Class colour').inputValue()).toBe('#ff0000');
    await page.getByLabel('Class name').fill('healthy');
    await page.getByRole('button', { name: 'Add Class' }).click();
    expect(await classSummary()).toEqual(['healthy: 0 samples']);
    expect(await classButtons().locator('.kmeans-swatch').getAttribute('style')).toContain('rgb(255, 0, 0)');

    await page.getByTestId('file-input').setInputFiles(blobsPng);
    const stage = page.getByTestId('kmeans-stage');
    await stage.waitFor();
    const box = (await stage.locator('canvas').first().boundingBox())!;
    expect([Math.round(box.width), Math.round(box.height)]).toEqual([96, 72]);
    const drag = async (x0: number, y0: number, x1: number, y1: number) => {
      await page.mouse.move(box.x + x0, box.y + y0);
      await page.mouse.down();
      await page.mouse.move(box.x + (x0 + x1) / 2, box.y + (y0 + y1) / 2);
      await page.mouse.move(box.x + x1, box.y + y1);
      await page.mouse.up();
    };
    await drag(10, 10, 30, 25); // no class selected: ignored
    expect(await classSummary()).toEqual(['healthy: 0 samples']);
    await classButtons().first().click();
    expect(await classButtons().first().getAttribute('aria-pressed')).toBe('true');
    expect(await runButton().isDisabled()).toBe(false);
    await drag(10, 10, 30, 25);
    await expect.poll(() => classSummary()).toEqual(['healthy: 300 samples']);
    await drag(50, 50, 50.4, 60); // under 1 pixel wide: ignored
    await drag(20, 30, 70, 30.5); // under 1 pixel high: ignored
    expect(await classSummary()).toEqual(['healthy: 300 samples']);
  });

  it('imports a classes file and gives the same percentages as the plugin in Node', async () => {
    const { page } = e2e;
    const classes = kmeansClassesFile.parse(JSON.parse(readFileSync(blobsClasses, 'utf8')));
    await page.getByTestId('classes-input').setInputFiles(blobsClasses);
    await expect
      .poll(() => classButtons().locator('.kmeans-class-name').allInnerTexts())
      .toEqual(['healthy', 'bruise', 'blush', 'background']);
    expect(await runButton().isDisabled()).toBe(true); // the import clears the selection
    await classButtons().nth(1).click();
    await runButton().click();
    await page.getByRole('heading', { name: 'Class Area %' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('kmeans-results').locator('th').allInnerTexts()).toEqual([
      'Class',
      'Color',
      'Percentage',
    ]);
    const rows = await tableRows();
    // The clustering ran in the module worker, not on the page's thread.
    expect(page.workers().map((w) => w.url())).toEqual([expect.stringMatching(/kmeans\.worker.*\.js$/)]);
    expect(rows).toEqual(await nodeResult(blobsPng, classes));
    // and the numpy reference of the fixture
    const expected = JSON.parse(readFileSync(join(FIXTURES, 'blobs.expected.json'), 'utf8')) as {
      result: { name: string; percent: string }[];
      counts: number[];
    };
    expect(rows).toEqual(expected.result.map((r) => [r.name, `${r.percent}%`]));

    // The canvas is recoloured: every image pixel has its class colour, in the reference counts.
    const histogram = await page.getByTestId('kmeans-stage').evaluate((el) => {
      const canvas = el.querySelector('canvas')!;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      const counts: Record<string, number> = {};
      for (let i = 0; i < data.length; i += 4) {
        const key = `${data[i]},${data[i + 1]},${data[i + 2]},${data[i + 3]}`;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    });
    const want: Record<string, number> = {};
    classes.classes.forEach((c, k) => (want[`${c.color.join(',')},255`] = expected.counts[k]));
    expect(histogram).toEqual(want);
    await page.screenshot({ path: '/tmp/e2e-shots/kmeans.png', fullPage: true });
  });

  it('exports the classes file the CLI reads, and the result file', async () => {
    const { page } = e2e;
    const [classesDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Classes' }).click(),
    ]);
    expect(classesDownload.suggestedFilename()).toBe('kmeans-classes.json');
    const exported = JSON.parse(readFileSync((await classesDownload.path())!, 'utf8'));
    expect(exported).toEqual(JSON.parse(readFileSync(blobsClasses, 'utf8')));
    const [resultDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Results' }).click(),
    ]);
    const results = JSON.parse(readFileSync((await resultDownload.path())!, 'utf8')) as { percent: string }[];
    expect(results.map((r) => `${r.percent}%`)).toEqual((await tableRows()).map((r) => r[1]));
  });

  it('Delete Image clears the canvas, samples, regions and results', async () => {
    const { page } = e2e;
    await page.getByRole('button', { name: 'Delete Image' }).click();
    expect(await page.getByTestId('kmeans-stage').count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Class Area %' }).count()).toBe(0);
    expect(await classButtons().locator('.kmeans-samples').allInnerTexts()).toEqual([
      '0 samples',
      '0 samples',
      '0 samples',
      '0 samples',
    ]);
    await page.getByTestId('file-input').setInputFiles(blobsPng);
    await page.getByTestId('kmeans-stage').waitFor();
    expect(await classButtons().locator('.kmeans-samples').allInnerTexts()).toEqual([
      '0 samples',
      '0 samples',
      '0 samples',
      '0 samples',
    ]);
    // Without samples Run does nothing.
    await runButton().click();
    expect(await page.getByRole('heading', { name: 'Class Area %' }).count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    // With samples for one class only, the plugin's message names the class without samples.
    const box = (await page.getByTestId('kmeans-stage').locator('canvas').first().boundingBox())!;
    await page.mouse.move(box.x + 40, box.y + 30);
    await page.mouse.down();
    await page.mouse.move(box.x + 45, box.y + 35);
    await page.mouse.up();
    await expect
      .poll(() => classSummary())
      .toEqual(['healthy: 0 samples', 'bruise: 25 samples', 'blush: 0 samples', 'background: 0 samples']);
    await runButton().click();
    await expect
      .poll(() => page.getByRole('alert').innerText(), { timeout: 30_000 })
      .toContain('class "healthy" has no samples');
  });

  it.skipIf(!shared)('matches the plugin in Node on a shared JPEG photo', async () => {
    const { page } = e2e;
    const classes: KMeansClassesFile = {
      classes: [
        { name: 'healthy', color: [255, 0, 0], regions: [{ x: 760, y: 620, width: 80, height: 80 }] },
        { name: 'background', color: [0, 255, 0], regions: [{ x: 0, y: 0, width: 100, height: 100 }] },
        { name: 'edge', color: [0, 0, 255], regions: [{ x: 400, y: 400, width: 60, height: 60 }] },
        { name: 'other', color: [255, 255, 0], regions: [{ x: 1100, y: 800, width: 60, height: 60 }] },
      ],
    };
    const file = join(dir, 'photo.classes.json');
    writeFileSync(file, JSON.stringify(classes));
    // Classes file first, then the photo (after Delete Image): the imported regions stay.
    await page.getByRole('button', { name: 'Delete Image' }).click();
    await page.getByTestId('classes-input').setInputFiles(file);
    await page.getByTestId('file-input').setInputFiles(sharedPhoto);
    await expect.poll(() => page.locator('.kmeans-file-name').innerText()).toContain('(1600 x 1336)');
    expect(await classSummary()).toEqual([
      'healthy: 6400 samples',
      'background: 10000 samples',
      'edge: 3600 samples',
      'other: 3600 samples',
    ]);
    await classButtons().first().click();
    await runButton().click();
    await page.getByRole('heading', { name: 'Class Area %' }).waitFor({ timeout: 60_000 });
    expect(await tableRows()).toEqual(await nodeResult(sharedPhoto, classes));
    console.log(
      `k-means e2e: 1600x1336 JPEG in the browser worker: ${await page.locator('.kmeans-results .tool-status').innerText()}`,
    );
  });
});
