/**
 * Layout and language (issue 27 item 8): every signed-in page at 1280 px and on a 390 px phone, in
 * English and in Thai, has no horizontal overflow (the page's scrollWidth at most the viewport's);
 * at 1280 px the navigation is one line; on the phone a menu button opens it and the avatar stays on
 * the bar's row; at both widths the language switch covers no content (it is not fixed, and it starts
 * below the page's main). Thai is drawn with the shipped Sarabun
 * webfont, served by the app. One browser, one signed-in user; the pages that show a run get one
 * made through the API. Also the views that open over a page: the compare page of two runs with
 * metadata (its plots, and the runs as one series), the stored run with the mask editor open, and the re-scoring side by side
 * (a model-scored run re-scored by a second model version, the run page and the re-scored run).
 * Every chart fits its card at both widths (no chart scrolls sideways), and the run's HTML report and
 * the compare page's series report fit the phone too. Screenshots of every page in web/e2e/artifacts/layout/ (git-ignored).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { MODELS_DIR } from '@mango/models';
import { th } from '../src/i18n/th.ts';
import type { Locator } from 'playwright-core';
import { signInViaApi, startE2E, type E2E } from './harness.ts';
import { addOneViewModel } from './model-helpers.ts';
import { FEATURE_IDS } from '@mango/plugin-features/names';

const SHOTS = resolve(import.meta.dirname, 'artifacts/layout');
/** A camera's long file name without a place to break (underscores only). */
const LONG_NAME = 'cv_keitt_day03_trt_hotwater_fruit12_tray4_camera_left_IMG_20261126_101530_0001_original.png';
const WIDTHS = [1280, 390] as const;
const LANGUAGES = ['en', 'th'] as const;
type Language = (typeof LANGUAGES)[number];
/** A metadata pattern of the long name: the compare page plots by cultivar, treatment and day. */
const META_PATTERN = 'cv_{cultivar}_day{day}_trt_{treatment}_fruit{fruit_id}_*';

describe('layout at 1280 px and 390 px, in English and Thai', () => {
  let e2e: E2E;
  let bruiseRun: string;
  let featureRun: string;
  /** a run scored by the shipped model and re-scored by a second version */
  let modelRun: string;
  /** a run with metadata compared with modelRun (day 3 and day 5 of the fruit) */
  let compared: string;
  let auth: Record<string, string>;
  /**
   * the signed-in pages, by screenshot name, with what opens a view over the page once it is drawn
   * (it answers the view, whose own screenshot is kept too: a long page's is cut at 4000 px)
   */
  let pages: [string, string, ((lang: Language) => Promise<Locator>)?][];

  beforeAll(async () => {
    e2e = await startE2E();
    e2e.page.on('request', () => inFlight++);
    const finished = () => (inFlight = Math.max(0, inFlight - 1));
    e2e.page.on('requestfinished', finished);
    e2e.page.on('requestfailed', finished);
    const { tokens } = await signInViaApi(e2e);
    auth = { Authorization: `Bearer ${tokens.accessToken}` };
    mkdirSync(SHOTS, { recursive: true });
    const png = await encodeImage(bruisedPairScene().image, 'png');
    // a graded bruise run (its fruit table has the grade column) of a photo with a long name
    const bruise = new FormData();
    bruise.append('images', new Blob([png as BlobPart]), LONG_NAME);
    bruise.append('grades', 'percent');
    const scored = await fetch(e2e.url('/api-py/python/bruise_detection/Classical'), {
      method: 'POST',
      headers: auth,
      body: bruise,
    });
    expect(scored.status).toBe(200);
    const items = (await scored.json()) as { run_id: string; overlay_img?: string }[];
    bruiseRun = items[0].run_id;
    // a feature run of all 13 features
    const analyze = new FormData();
    analyze.append('images', new Blob([png as BlobPart]), LONG_NAME);
    analyze.append('features', JSON.stringify(FEATURE_IDS));
    const analysed = await fetch(e2e.url('/api-py/python/analyze'), { method: 'POST', headers: auth, body: analyze });
    expect(analysed.status).toBe(200);
    const features = (await analysed.json()) as { run_id: string }[];
    featureRun = features[0].run_id;
    /** a bruise run of one photo with the metadata pattern, scored by `method`; answers its id */
    const scoreWithMeta = async (photo: Uint8Array, name: string, method: string) => {
      const form = new FormData();
      form.append('images', new Blob([photo as BlobPart]), name);
      form.append('meta', META_PATTERN);
      const res = await fetch(e2e.url(`/api-py/python/bruise_detection/${method}`), {
        method: 'POST',
        headers: auth,
        body: form,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { run_id: string }[])[0].run_id;
    };
    // two runs to compare (day 3 and day 5 of the fruit); the second scored by the model, then
    // re-scored by a second version of it (the shipped network reading each photo once)
    compared = await scoreWithMeta(png, LONG_NAME, 'Classical');
    const sample = new Uint8Array(readFileSync(join(MODELS_DIR, 'fixtures', 'sample-1.png')));
    modelRun = await scoreWithMeta(sample, LONG_NAME.replace('day03', 'day05'), 'DeepLearning');
    const copy = await addOneViewModel(e2e);
    const started = await fetch(e2e.url(`/api-node/runs/${modelRun}/rescore`), {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ model_id: copy }),
    });
    expect(started.status).toBe(202);
    const jobId = ((await started.json()) as { id: string }).id;
    let job = { state: 'queued', run_id: '' };
    for (const until = Date.now() + 90_000; !['done', 'failed', 'cancelled'].includes(job.state);) {
      if (Date.now() > until) throw new Error(`the re-scoring job is still ${job.state}`);
      await new Promise((r) => setTimeout(r, 250));
      job = (await (await fetch(e2e.url(`/api-node/jobs/${jobId}`), { headers: auth })).json()) as typeof job;
    }
    expect(job.state).toBe('done');
    for (const [operationType, runId] of [
      ['Bruised Area Calculation', bruiseRun],
      [`Features Analysis: ${FEATURE_IDS.join(',')}`, featureRun],
      ['Resize', null],
    ]) {
      const logged = await fetch(e2e.url('/api-node/user/action'), {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ operationType, run_id: runId }),
      });
      expect(logged.ok).toBe(true);
    }
    // the results pages read the last results from storage
    await e2e.page.evaluate(
      ({ rows, analysis }) => {
        localStorage.setItem('uploadedFiles', JSON.stringify(rows));
        sessionStorage.setItem('featureAnalysisResults', JSON.stringify(analysis));
      },
      {
        rows: items.map((i) => ({ ...i, overlay_img: undefined })),
        analysis: { selectedFeatures: FEATURE_IDS, analysisResults: features },
      },
    );
    pages = [
      ['/home', 'home'],
      ['/dashboard', 'dashboard'],
      ['/bruise', 'bruise'],
      ['/showarea/accuracy', 'showarea'],
      ['/viewphoto/result', 'viewphoto'],
      ['/analysis', 'analysis'],
      ['/analysis/result', 'analysis-result'],
      ['/exportfeature', 'exportfeature'],
      ['/resize', 'resize'],
      ['/crop', 'crop'],
      ['/removebackground', 'removebackground'],
      ['/results', 'results'],
      [`/results/${bruiseRun}`, 'run-bruise'],
      [`/results/${featureRun}`, 'run-features'],
      ['/profile', 'profile'],
      ['/profile/edit', 'profile-edit'],
      ['/profile/changepassword', 'profile-password'],
      ['/newpassword', 'newpassword'],
      ['/apikeys', 'apikeys'],
      ['/aboutusmain', 'aboutusmain'],
      ['/contactusmain', 'contactusmain'],
      ['/k-means', 'kmeans'],
      ['/api-docs', 'api-docs'],
      [`/results/compare?ids=${compared},${modelRun}`, 'compare', compareView],
      [`/results/compare?ids=${compared},${modelRun}&view=series`, 'compare-series', seriesView],
      [
        `/results/${bruiseRun}`,
        'run-mask-editor',
        async (lang) => {
          await e2e.page
            .getByRole('button', { name: lang === 'en' ? 'Correct' : th.Correct, exact: true })
            .first()
            .click();
          // drawn once the kept photo and its masks are in: the figures are filled
          await expect
            .poll(() => e2e.page.getByTestId('editor-bruise-percent').textContent(), { timeout: 30_000 })
            .toMatch(/\d/);
          // the drawing area fits the page (a phone too): none of the photo is cut off at the right
          const stage = await e2e.page.getByTestId('mask-editor-stage').locator('canvas').first().boundingBox();
          expect(stage!.x + stage!.width).toBeLessThanOrEqual(e2e.page.viewportSize()!.width);
          return e2e.page.getByTestId('mask-editor');
        },
      ],
      [`/results/${modelRun}`, 'run-rescore', rescoreView],
      [`/results/${job.run_id}`, 'run-rescored', rescoreView],
    ];
  }, 240_000);
  afterAll(async () => {
    await e2e?.close();
  });

  /** What the page's geometry says about the layout. */
  async function measure() {
    return e2e.page.evaluate(() => {
      const rect = (el: Element | null) => {
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return { top: r.top + scrollY, bottom: r.bottom + scrollY, left: r.left, right: r.right, height: r.height };
      };
      const links = [...document.querySelectorAll('#main-nav a')].map((a) => rect(a)!);
      const visible = (el: Element | null) => !!el && getComputedStyle(el).display !== 'none';
      // the deepest elements that reach past the viewport's right edge, to name in a failure
      const clipped = (el: Element) => {
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
          if (getComputedStyle(a).overflowX !== 'visible') return true;
        return false;
      };
      const past = [...document.querySelectorAll('body *')].filter(
        (el) =>
          el.getBoundingClientRect().right > innerWidth + 0.5 &&
          getComputedStyle(el).position !== 'fixed' &&
          !clipped(el),
      );
      const wide = past
        .filter((el) => !past.some((other) => other !== el && el.contains(other)))
        .slice(0, 3)
        .map(
          (el) =>
            `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} (${Math.round(el.getBoundingClientRect().right)} px)`,
        );
      return {
        wide,
        scrollWidth: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        nav: rect(document.querySelector('#main-nav')),
        navVisible: visible(document.querySelector('#main-nav')),
        linkTops: links.map((l) => l.top),
        linkHeight: Math.max(0, ...links.map((l) => l.height)),
        toggleVisible: visible(document.querySelector('.nav-toggle')),
        logo: rect(document.querySelector('.navbar .logo')),
        avatar: rect(document.querySelector('.navbar .avatar')),
        toggle: rect(document.querySelector('.nav-toggle')),
        header: rect(document.querySelector('.navbar')),
        main: rect(document.querySelector('main')),
        footer: rect(document.querySelector('.footer')),
        switcher: rect(document.querySelector('.language-switch')),
        switcherPosition: getComputedStyle(document.querySelector('.language-switch')!).position,
        // each chart's card: wider content than the card would scroll sideways
        plots: [...document.querySelectorAll('figure.plot')].map((el) => ({
          title: el.querySelector('[role="img"]')?.getAttribute('aria-label') ?? '',
          scrollWidth: el.scrollWidth,
          clientWidth: el.clientWidth,
          right: el.querySelector('svg')?.getBoundingClientRect().right ?? 0,
        })),
      };
    });
  }

  /** Opens a page in the viewport and language and waits until it has drawn its heading. */
  async function open(path: string) {
    const { page } = e2e;
    if (path === '/viewphoto/result') {
      // it shows the photo handed over by the results table: opened from there
      await open('/showarea/accuracy');
      await page.locator('.results-table button.file-name').first().click();
      await page.waitForURL('**/viewphoto/result');
    } else await page.goto(e2e.url(path));
    await page.locator('main h1').first().waitFor();
    await settled();
  }

  /** Waits until the page shows `count` elements of a test id (a view loaded after the page). */
  async function waitFor(testId: string, count: number) {
    await expect.poll(() => e2e.page.getByTestId(testId).count(), { timeout: 30_000 }).toBe(count);
  }

  /** The compare page once both runs are in: its runs and plots. */
  async function compareView() {
    await waitFor('compare-run', 2);
    return e2e.page.locator('main');
  }

  /** The compare page's one series of both runs (one fruit over day 3 and day 5) once its chart is drawn. */
  async function seriesView() {
    await waitFor('series-row', 2);
    await expect
      .poll(() => e2e.page.getByTestId('plot-series').getAttribute('data-state'), { timeout: 30_000 })
      .toBe('ready');
    return e2e.page.getByTestId('compare-series');
  }

  /** The re-scoring side by side once its photo row is in. */
  async function rescoreView() {
    await waitFor('rescore-photo', 1);
    return e2e.page.getByTestId('rescore-compare');
  }

  /** Requests of the page still open (the pages' data calls, images, fonts). */
  let inFlight = 0;
  /** Waits until no request has been open for two looks 50 ms apart (quicker than 'networkidle's 500 ms). */
  async function settled() {
    for (let quiet = 0; quiet < 2;) {
      await new Promise((r) => setTimeout(r, 50));
      quiet = inFlight === 0 ? quiet + 1 : 0;
    }
    await e2e.page.evaluate(() => document.fonts.ready.then(() => undefined));
  }

  for (const width of WIDTHS)
    for (const lang of LANGUAGES)
      it(`every signed-in page at ${width} px in ${lang === 'en' ? 'English' : 'Thai'}`, async () => {
        const { page } = e2e;
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.evaluate((l) => localStorage.setItem('language', l), lang);
        const problems: string[] = [];
        for (const [path, shot, view] of pages) {
          await open(path);
          const opened = view ? await view(lang) : null;
          if (opened) {
            await settled();
            await opened.screenshot({ path: join(SHOTS, `${width}-${lang}-${shot}-view.png`) });
          }
          const m = await measure();
          // the whole page, down to 4000 px (the API reference is ten times longer)
          const height = Math.min(4000, await page.evaluate(() => document.documentElement.scrollHeight));
          await page.screenshot({
            path: join(SHOTS, `${width}-${lang}-${shot}.jpg`),
            type: 'jpeg',
            quality: 80,
            fullPage: true,
            clip: { x: 0, y: 0, width, height },
          });
          if (m.scrollWidth > m.viewport)
            problems.push(`${shot} ${path}: scrollWidth ${m.scrollWidth} > ${m.viewport}: ${m.wide.join(', ')}`);
          // every chart fits its card and the screen: none scrolls sideways (a phone's too)
          for (const plot of m.plots)
            if (plot.scrollWidth > plot.clientWidth + 1 || plot.right > m.viewport + 0.5)
              problems.push(
                `${shot}: the chart '${plot.title}' scrolls (${plot.scrollWidth} px in a ${plot.clientWidth} px card, its right edge at ${Math.round(plot.right)} px)`,
              );
          if (width === 1280) {
            // one line: every link on the same row, the nav no taller than a link
            if (!m.navVisible || m.toggleVisible) problems.push(`${path}: the nav is folded at 1280 px`);
            if (new Set(m.linkTops.map(Math.round)).size !== 1)
              problems.push(`${path}: the nav wraps (${[...new Set(m.linkTops.map(Math.round))].join(', ')})`);
            if (m.nav!.height > m.linkHeight + 1)
              problems.push(`${path}: nav ${m.nav!.height} px high, a link ${m.linkHeight} px`);
          } else {
            if (m.navVisible || !m.toggleVisible) problems.push(`${path}: no menu button on the phone`);
            // the logo, the menu button and the avatar on one row of the bar
            const rows = [m.logo!, m.toggle!, m.avatar!];
            if (rows.some((r) => r.top >= m.logo!.bottom || r.bottom <= m.logo!.top))
              problems.push(`${path}: the bar wraps (${rows.map((r) => Math.round(r.top)).join(', ')})`);
            if (m.header!.height > 72) problems.push(`${path}: the bar is ${m.header!.height} px high`);
          }
          // the language switch covers no content: it sits below the page, not over it
          const sw = m.switcher!;
          if (m.switcherPosition === 'fixed') problems.push(`${path}: the language switch floats over the page`);
          if (sw.top < m.main!.bottom) problems.push(`${path}: the language switch overlaps the page`);
        }
        expect(problems.join('\n')).toBe('');
      }, 240_000);

  it('the phone menu opens the links below the bar and closes on a choice', async () => {
    const { page } = e2e;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await open('/home');
    await page.getByRole('button', { name: 'Menu', exact: true }).click();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Feature Analysis' }).waitFor();
    const m = await measure();
    expect(m.navVisible).toBe(true);
    expect(m.nav!.top).toBeGreaterThanOrEqual(m.logo!.bottom);
    expect(m.scrollWidth).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, '390-en-menu-open.png') });
    await nav.getByRole('link', { name: 'Feature Analysis' }).click();
    await page.waitForURL('**/analysis');
    await page.getByRole('heading', { name: 'Feature Analysis', level: 1 }).waitFor();
    expect((await measure()).navVisible).toBe(false);
  });

  it('the dashboard summarises a feature analysis, the full list on hover; Thai names the operations', async () => {
    const { page } = e2e;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await open('/dashboard');
    const features = page.getByRole('link', { name: /^Feature Analysis \(13 features\)/ });
    await features.waitFor();
    expect(await features.innerText()).toBe('Feature Analysis (13 features)');
    const title = await features.getAttribute('title');
    expect(title).toContain('RGB Color Space, HSV Color Space, LAB Color Space, Grayscale Intensity, GLCM Texture');
    expect(title).toContain('Algebraic Features');
    // the date stays on screen
    const time = await page.locator('tbody time').first().boundingBox();
    expect(time!.x + time!.width).toBeLessThanOrEqual(1280);

    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await open('/dashboard');
    const cells = await page.locator('td.operation-cell').allInnerTexts();
    expect(cells.sort()).toEqual(['คำนวณพื้นที่รอยช้ำ', 'ปรับขนาด', 'วิเคราะห์คุณลักษณะ (13 คุณลักษณะ)'].sort());
  });

  it('Thai is drawn with the Sarabun webfont served by the app itself', async () => {
    const { page } = e2e;
    const fonts: string[] = [];
    page.on('response', (r) => {
      if (/\.(woff2?|ttf|otf)(\?|$)/.test(r.url())) fonts.push(r.url());
    });
    await page.evaluate(() => localStorage.setItem('language', 'th'));
    await open('/home');
    await page.evaluate(() => document.fonts.ready);
    const family = await page.locator('main h1').evaluate((el) => getComputedStyle(el).fontFamily);
    expect(family.split(',')[0].replace(/['"]/g, '').trim()).toBe('Sarabun');
    const loaded = await page.evaluate(
      () =>
        [...document.fonts].filter((f) => f.family.replace(/['"]/g, '') === 'Sarabun' && f.status === 'loaded').length,
    );
    expect(loaded).toBeGreaterThan(0);
    expect(fonts.length).toBeGreaterThan(0);
    for (const url of fonts) expect(new URL(url).origin).toBe(new URL(e2e.url('/')).origin);
    expect(fonts.some((u) => /sarabun-thai-(400|700)-normal/.test(u))).toBe(true);
  });

  it('the stored fruit table shows its grade column beside a long file name, which wraps or has its tooltip', async () => {
    const { page } = e2e;
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await open(`/results/${bruiseRun}`);
    await page.getByRole('button', { name: `Fruit of ${LONG_NAME}` }).click();
    await expect.poll(() => page.getByTestId('run-fruit').count()).toBe(2);
    // the photo table's grade column and each fruit's grade are inside the table's box, not scrolled away
    const grades = [
      page.getByRole('table', { name: 'Photos of the run' }).getByRole('columnheader').last(),
      ...(await page.getByTestId('fruit-grade').all()),
    ];
    expect(await grades[0].innerText()).toMatch(/Grade/);
    for (const cell of grades) {
      const seen = await cell.evaluate((el) => {
        const wrap = el.closest('.table-wrap')!.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return { inside: r.left >= wrap.left - 1 && r.right <= wrap.right + 1, text: el.textContent ?? '' };
      });
      expect(seen.inside).toBe(true);
      expect(seen.text.trim()).not.toBe('');
    }
    await page.screenshot({ path: join(SHOTS, '1280-en-run-bruise-fruit.png'), fullPage: true });
    // each place that shows the long name keeps it whole in a tooltip or shows it whole
    for (const [width, path] of [
      [390, '/showarea/accuracy'],
      [390, '/viewphoto/result'],
      [390, `/results/${bruiseRun}`],
      [1280, `/results/${bruiseRun}`],
    ] as const) {
      await page.setViewportSize({ width, height: 844 });
      await open(path);
      const named = page.getByText(LONG_NAME, { exact: true });
      await named.first().waitFor();
      for (const el of await named.all()) {
        const { overflow, title } = await el.evaluate((n) => ({
          overflow: n.scrollWidth > n.clientWidth + 1,
          title: n.getAttribute('title'),
        }));
        if (overflow) expect(title).toBe(LONG_NAME);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
  });
  it('the run report and the series report fit a 390 px phone: no sideways scroll, every chart on screen', async () => {
    const { page } = e2e;
    const reports: [string, string][] = [];
    // a stored run's HTML report (its plots by cultivar, treatment and day)
    const res = await fetch(e2e.url(`/api-node/runs/${compared}/export?format=html`), { headers: auth });
    expect(res.status).toBe(200);
    const runReport = join(SHOTS, 'run-report.html');
    writeFileSync(runReport, await res.text());
    reports.push(['run-report', runReport]);
    // the series report of the two compared runs, as the compare page downloads it on a phone
    await page.setViewportSize({ width: 390, height: 844 });
    await page.evaluate(() => localStorage.setItem('language', 'en'));
    await open(`/results/compare?ids=${compared},${modelRun}&view=series`);
    await seriesView();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Series report' }).click(),
    ]);
    const seriesReport = join(SHOTS, 'series-report.html');
    await download.saveAs(seriesReport);
    reports.push(['series-report', seriesReport]);
    const view = await page.context().newPage();
    try {
      await view.setViewportSize({ width: 390, height: 844 });
      for (const [name, file] of reports) {
        await view.goto(`file://${file}`);
        await view.locator('h1').waitFor();
        const m = await view.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          charts: [...document.querySelectorAll('.plots svg')].map((svg) => {
            const r = svg.getBoundingClientRect();
            return { left: r.left, right: r.right, width: r.width };
          }),
        }));
        expect(m.scrollWidth, name).toBeLessThanOrEqual(390);
        expect(m.charts.length, name).toBeGreaterThan(0);
        for (const c of m.charts) {
          expect(c.left, name).toBeGreaterThanOrEqual(0);
          expect(c.right, name).toBeLessThanOrEqual(390);
          expect(c.width, name).toBeGreaterThan(200);
        }
        await view.screenshot({ path: join(SHOTS, `390-en-${name}.png`), fullPage: true });
      }
    } finally {
      await view.close();
    }
  });
});
