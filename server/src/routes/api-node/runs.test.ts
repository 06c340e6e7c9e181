import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import JSZip from 'jszip';
import sharp from 'sharp';
import { HistoryRecord } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { bruisedPairScene } from '@mango/core/testing';
import { sharedDir, SHARED_MISSING } from '@mango/core/testing/node';
import { ResultsFile } from '@mango/core/results';
import { startTestServer, TEST_DATABASES, type TestServer } from '../../testing/index.ts';
import { client, signUp, type Client, type SignedIn } from '../../testing/accounts.ts';
import { BruiseResultItem } from '@mango/plugin-bruise/results';

const FRUIT_HEADER =
  'image,fruit,bbox_x,bbox_y,bbox_w,bbox_h,fruit_pixels,bruise_pixels,bruise_percent,lesion_count,fruit_area_cm2,bruise_area_cm2,colour_difference,grade,size_group,weight_g,size_source,scale_status,corrected,model_fruit_pixels,model_bruise_pixels,model_bruise_percent';
const IMAGE_HEADER =
  'image,fruit_count,fruit_pixels,bruise_pixels,bruise_percent,non_bruise_percent,lesion_count,colour_difference,method,model_id,px_per_cm,fruit_area_cm2,bruise_area_cm2,scale_status,scale_source,quality,error,corrected,model_fruit_pixels,model_bruise_pixels,model_bruise_percent';

/** Two shaded mangoes on a grey table, the left one with a dark brown bruise. */
const twoMangoes = () => encodeImage(bruisedPairScene().image, 'png');

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.each(TEST_DATABASES)('stored runs on %s', (database) => {
  let server: TestServer;
  let api: Client;
  let alice: SignedIn;
  let bob: SignedIn;
  let png: Uint8Array;
  beforeAll(async () => {
    server = await startTestServer({}, { database });
    api = client(server);
    alice = await signUp(api, 'Alice Farms');
    bob = await signUp(api, 'Bob Exports');
    png = await twoMangoes();
  });
  afterAll(() => server.close());

  async function upload(
    path: string,
    files: [string, Uint8Array][],
    token: string,
    extra: Record<string, string> = {},
  ) {
    const fd = new FormData();
    for (const [name, bytes] of files) fd.append('images', new Blob([bytes as BlobPart]), name);
    for (const [k, v] of Object.entries(extra)) fd.append(k, v);
    const res = await fetch(server.url + path, {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${token}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>[] };
  }
  const bruise = (files: [string, Uint8Array][], token = alice.accessToken) =>
    upload('/api-py/python/bruise_detection/Classical', files, token);
  const download = async (path: string, token = alice.accessToken) => {
    const res = await fetch(server.url + path, { headers: { Authorization: `Bearer ${token}` } });
    return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  };
  const text = (b: Uint8Array) => new TextDecoder().decode(b);

  it('stores a bruise call as a run: run_id on every item, nothing else of the answer changes', async () => {
    // A bidi override in the name is dropped (sanitizeFileName), in the answer and in the stored run.
    const sent = 'two\u202Emangoes.png';
    const res = await bruise([
      [sent, png],
      ['copy.png', png],
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const runId = res.body[0].run_id as string;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    for (const item of res.body) {
      expect(item.run_id).toBe(runId);
      const { run_id: _r, ...rest } = item;
      // The answer is exactly the contract item plus run_id.
      expect(BruiseResultItem.strict().safeParse(rest).success).toBe(true);
    }
    expect(res.body[0].filename).toBe('twomangoes.png');
    expect((res.body[0].fruits as unknown[]).length).toBe(2);

    const run = await api.get<{
      id: string;
      operation: string;
      method: string;
      method_used: string;
      item_count: number;
      app_version: string;
      username: string;
      items: {
        filename: string;
        sha256: string;
        width: number;
        height: number;
        result: { fruits: { bruise_percent: number; colour_difference: number | null }[]; bruise_percent: number };
        overlay_thumbnail: string;
        photo_thumbnail: string;
      }[];
    }>(`/api-node/runs/${runId}`, alice.accessToken);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({
      id: runId,
      operation: 'bruise',
      method: 'classical',
      method_used: 'classical',
      item_count: 2,
      app_version: '0.1.0',
      username: alice.username,
    });
    expect(run.body.items.map((i) => i.filename)).toEqual(['twomangoes.png', 'copy.png']);
    expect(run.body.items[0]).toMatchObject({ sha256: sha256(png), width: 480, height: 240 });
    const fruits = run.body.items[0].result.fruits;
    expect(fruits).toHaveLength(2);
    // The bruised left fruit is found as such; the clean right one is not.
    expect(fruits[0].bruise_percent).toBeGreaterThan(5);
    expect(fruits[0].colour_difference).toBeGreaterThan(10);
    expect(fruits[1].bruise_percent).toBeLessThan(1);
    const thumb = run.body.items[0].overlay_thumbnail;
    expect(thumb.startsWith('data:image/jpeg;base64,')).toBe(true);
    const meta = await sharp(Buffer.from(thumb.split(',')[1], 'base64')).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(256);
    const photo = await sharp(Buffer.from(run.body.items[0].photo_thumbnail.split(',')[1], 'base64')).metadata();
    expect([photo.format, photo.width, photo.height]).toEqual(['jpeg', 256, 128]);
  });

  it('another user cannot see, export or delete the run (404), nor log it as theirs', async () => {
    const { body } = await bruise([['mine.png', png]]);
    const runId = body[0].run_id as string;
    expect((await api.get(`/api-node/runs/${runId}`, bob.accessToken)).status).toBe(404);
    expect((await download(`/api-node/runs/${runId}/export?format=zip`, bob.accessToken)).status).toBe(404);
    expect((await api.del(`/api-node/runs/${runId}`, bob.accessToken)).status).toBe(404);
    const bobs = await api.get<{ runs: { id: string }[] }>('/api-node/runs', bob.accessToken);
    expect(bobs.body.runs).toEqual([]);
    const action = await api.post(
      '/api-node/user/action',
      { operationType: 'Bruised Area Calculation', run_id: runId },
      bob.accessToken,
    );
    expect(action.status).toBe(400);
    expect((await api.get(`/api-node/runs/${runId}`, alice.accessToken)).status).toBe(200);
    expect((await api.get(`/api-node/runs/${runId}`)).status).toBe(401);
  });

  it('exports the per-fruit and per-image tables, the results JSON, the zip and the report', async () => {
    const { body } = await bruise([
      ['a.png', png],
      ['b.png', png],
    ]);
    const runId = body[0].run_id as string;
    const fruitsCsv = await download(`/api-node/runs/${runId}/export?format=csv`);
    expect(fruitsCsv.status).toBe(200);
    expect(fruitsCsv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(fruitsCsv.headers.get('content-disposition')).toBe(`attachment; filename="run-${runId}-fruits.csv"`);
    const fruitLines = text(fruitsCsv.bytes).trim().split('\n');
    expect(fruitLines[0]).toBe(FRUIT_HEADER);
    // One row per fruit: two photos of two mangoes each.
    expect(fruitLines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual([
      'a.png,1',
      'a.png,2',
      'b.png,1',
      'b.png,2',
    ]);
    const items = body as unknown as BruiseResultItem[];
    const f0 = items[0].fruits[0];
    expect(fruitLines[1].split(',')).toEqual([
      'a.png',
      '1',
      String(f0.bbox.x),
      String(f0.bbox.y),
      String(f0.bbox.width),
      String(f0.bbox.height),
      String(f0.pixels),
      String(f0.bruise_pixels),
      String(f0.bruise_percent),
      String(f0.lesion_count),
      '',
      '',
      String(f0.colour_difference),
      // grade, size_group, weight_g, size_source: empty without grades
      '',
      '',
      '',
      '',
      // scale_status: no scale asked for
      'none',
      // nobody corrected it: the model's figures are the ones in force
      'false',
      String(f0.pixels),
      String(f0.bruise_pixels),
      String(f0.bruise_percent),
    ]);
    const imagesCsv = text((await download(`/api-node/runs/${runId}/export?format=csv&table=images`)).bytes);
    const imageLines = imagesCsv.trim().split('\n');
    expect(imageLines[0]).toBe(IMAGE_HEADER);
    expect(imageLines).toHaveLength(3);
    expect(imageLines[1].split(',').slice(0, 9)).toEqual([
      'a.png',
      '2',
      String(items[0].total_mango_pixels),
      String(items[0].bruise_pixels),
      String(items[0].bruise_percent),
      String(items[0].non_bruise_percent),
      String(items[0].fruits.reduce((a, f) => a + f.lesion_count, 0)),
      String(items[0].colour_difference),
      'classical',
    ]);

    const json = await download(`/api-node/runs/${runId}/export?format=json`);
    const file = ResultsFile.parse(JSON.parse(text(json.bytes)));
    expect(file.provenance).toMatchObject({
      app: 'mango-bruise-tracker',
      source: 'api',
      run_id: runId,
      operation: 'bruise',
      method: 'classical',
      options: { method: 'classical' },
      inputs: [
        { filename: 'a.png', sha256: sha256(png) },
        { filename: 'b.png', sha256: sha256(png) },
      ],
    });
    expect(file.photos.map((p) => p.filename)).toEqual(['a.png', 'b.png']);

    const zip = await JSZip.loadAsync((await download(`/api-node/runs/${runId}/export?format=zip`)).bytes);
    expect(
      Object.keys(zip.files)
        .filter((n) => !n.endsWith('/'))
        .sort(),
    ).toEqual(['fruits.csv', 'images.csv', 'overlays/a.overlay.jpg', 'overlays/b.overlay.jpg', 'provenance.json']);
    expect(await zip.file('fruits.csv')!.async('string')).toBe(text(fruitsCsv.bytes));
    expect(JSON.parse(await zip.file('provenance.json')!.async('string'))).toEqual(file.provenance);
    const overlay = await sharp(await zip.file('overlays/a.overlay.jpg')!.async('nodebuffer')).metadata();
    expect([overlay.format, overlay.width, overlay.height]).toEqual(['jpeg', 256, 128]);

    const sidecar = await download(`/api-node/runs/${runId}/export?format=provenance`);
    expect(sidecar.headers.get('content-disposition')).toBe(
      `attachment; filename="run-${runId}-fruits.csv.provenance.json"`,
    );
    expect(JSON.parse(text(sidecar.bytes))).toEqual(file.provenance);

    const html = await download(`/api-node/runs/${runId}/export?format=html&threshold=1`);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const page = text(html.bytes);
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain('Share over 1 %');
    expect(page).toContain(`<td>a.png</td>`);
    // Each photo beside its overlay.
    expect(page.match(/<img src="data:image\/jpeg;base64,[^"]+" alt="overlay of /g)).toHaveLength(2);
    expect(page.match(/<img src="data:image\/jpeg;base64,[^"]+" alt="photo /g)).toHaveLength(2);
    expect(page).not.toMatch(/<script|https?:\/\//);
    expect(html.headers.get('content-disposition')).toBe(`attachment; filename="run-${runId}.report.html"`);

    // lang=th: the same report in Thai, with the same figures and its font (allowed by the policy)
    const thai = await download(`/api-node/runs/${runId}/export?format=html&threshold=1&lang=th`);
    expect(thai.status).toBe(200);
    expect(thai.headers.get('content-language')).toBe('th');
    expect(thai.headers.get('content-security-policy')).toMatch(/font-src [^;]*data:/);
    expect(thai.headers.get('content-disposition')).toBe(`attachment; filename="run-${runId}.th.report.html"`);
    const thaiPage = text(thai.bytes);
    expect(thaiPage).toContain('<html lang="th">');
    expect(thaiPage).toContain('<th>สัดส่วนที่เกิน 1 %</th>');
    expect(thaiPage).toContain('<h2>ที่มาของข้อมูล</h2>');
    expect(thaiPage).toMatch(/@font-face\{font-family:Sarabun;/);
    const cells = (p: string) =>
      [...p.matchAll(/<td class="num">(.*?)<\/td>/gs)].map((c) => c[1].match(/[\d.]+/g)?.join(' '));
    expect(cells(page).length).toBeGreaterThan(10);
    expect(cells(thaiPage)).toEqual(cells(page));
    expect(thaiPage).not.toMatch(/<script|https?:\/\//);
    const german = await download(`/api-node/runs/${runId}/export?format=html&lang=de`);
    expect(german.status).toBe(400);
    expect(JSON.parse(text(german.bytes)).error).toMatch(/^Invalid lang/);

    expect((await download(`/api-node/runs/${runId}/export?format=pdf`)).status).toBe(400);
  });

  it('neutralises formulas in every CSV cell of the exports and the zip; numbers stay numbers', async () => {
    // OWASP CSV injection: a text cell a spreadsheet would run as a formula gets a leading '.
    const names = ['=1+1.png', "@SUM(1+1)*cmd|'calc'!A0.png", "+cmd|' -C calc'!A0.png", 'plain.png'];
    const { status, body } = await bruise(names.map((n): [string, Uint8Array] => [n, png]));
    expect(status).toBe(200);
    expect(body.map((b) => b.filename)).toEqual(names);
    const runId = body[0].run_id as string;
    const escaped = names.map((n) => (/^[=+\-@]/.test(n) ? `'${n}` : n));
    // None of these names holds a comma or a double quote: each line splits into its fields.
    const rowsOf = (csv: string) =>
      csv
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => l.split(','));

    const fruitsCsv = text((await download(`/api-node/runs/${runId}/export?format=csv`)).bytes);
    const fruitRows = rowsOf(fruitsCsv);
    expect(fruitRows.map((r) => r.length)).toEqual(Array(8).fill(22));
    expect(fruitRows.map((r) => r[0])).toEqual(escaped.flatMap((n) => [n, n]));
    expect(fruitRows.map((r) => r[1])).toEqual(['1', '2', '1', '2', '1', '2', '1', '2']);
    const imagesCsv = text((await download(`/api-node/runs/${runId}/export?format=csv&table=images`)).bytes);
    expect(rowsOf(imagesCsv).map((r) => r[0])).toEqual(escaped);

    const zip = await JSZip.loadAsync((await download(`/api-node/runs/${runId}/export?format=zip`)).bytes);
    expect(await zip.file('fruits.csv')!.async('string')).toBe(fruitsCsv);
    expect(await zip.file('images.csv')!.async('string')).toBe(imagesCsv);

    // A features run: negative values are numbers, written as they are; a failed photo's error is text.
    const analysed = await upload(
      '/api-py/python/analyze',
      [
        ['=1+1.png', png],
        ['-broken.png', new TextEncoder().encode('not a photo')],
      ],
      alice.accessToken,
      { features: '["grayscale","lab"]' },
    );
    expect(analysed.status).toBe(200);
    const analyzeId = analysed.body[0].run_id as string;
    const values = analysed.body[0].features as Record<string, Record<string, number>>;
    const featuresCsv = text((await download(`/api-node/runs/${analyzeId}/export?format=csv`)).bytes);
    const [header, ...rows] = featuresCsv.trim().split('\n');
    const columns = header.split(',');
    const first = rows[0].split(',');
    expect(first[0]).toBe("'=1+1.png");
    const negatives = Object.values(values)
      .flatMap((group) => Object.entries(group))
      .filter(([, v]) => v < 0);
    expect(negatives.length).toBeGreaterThan(0);
    for (const [name, v] of negatives) expect(first[columns.indexOf(name)]).toBe(String(v));
    expect(columns.at(-1)).toBe('error');
    const failed = rows[1].split(',');
    expect(failed[0]).toBe("'-broken.png");
    // the error message starts with the photo's name: neutralised too
    const error = analysed.body[1].error as string;
    expect(error).toMatch(/^-broken\.png: /);
    expect(error).not.toMatch(/[,"]/);
    expect(failed.at(-1)).toBe(`'${error}`);
    const zipped = await JSZip.loadAsync((await download(`/api-node/runs/${analyzeId}/export?format=zip`)).bytes);
    expect(await zipped.file('features.csv')!.async('string')).toBe(featuresCsv);
  });

  it('names the zip entries so that Windows can write them: < > : " | ? * and control characters replaced', async () => {
    const names = ["@SUM(1+1)*cmd|'calc'!A0.png", 'a<b>:c?.png', 'a_b__c_.png', 'CON.png', 'plain.png'];
    const { status, body } = await bruise(names.map((n): [string, Uint8Array] => [n, png]));
    expect(status).toBe(200);
    const runId = body[0].run_id as string;
    const zip = await JSZip.loadAsync((await download(`/api-node/runs/${runId}/export?format=zip`)).bytes);
    const entries = Object.keys(zip.files).filter((n) => !n.endsWith('/'));
    expect(entries.filter((n) => n.startsWith('overlays/'))).toEqual([
      "overlays/@SUM(1+1)_cmd_'calc'!A0.overlay.jpg",
      'overlays/a_b__c_.overlay.jpg',
      // the same name once replaced: numbered, not overwritten
      'overlays/a_b__c__2.overlay.jpg',
      // a Windows device name
      'overlays/_CON.overlay.jpg',
      'overlays/plain.overlay.jpg',
    ]);
    // eslint-disable-next-line no-control-regex
    for (const name of entries) expect(name).not.toMatch(/[<>:"|?*\\\u0000-\u001f]/);
    // the stored run and its CSV keep the names as sent
    const imagesCsv = text((await download(`/api-node/runs/${runId}/export?format=csv&table=images`)).bytes);
    expect(imagesCsv).toContain('\na<b>:c?.png,');
  });

  it('links the web app action to the run (one history row) and deleting the run keeps the history', async () => {
    const { body } = await bruise([['history.png', png]]);
    const runId = body[0].run_id as string;
    const before = (await api.get<unknown[]>('/api-node/user/history', alice.accessToken)).body.length;
    const logged = await api.post(
      '/api-node/user/action',
      { operationType: 'Bruised Area Calculation', run_id: runId },
      alice.accessToken,
    );
    expect(logged.status).toBe(201);
    const history = (await api.get<unknown[]>('/api-node/user/history', alice.accessToken)).body.map((r) =>
      HistoryRecord.parse(r),
    );
    expect(history).toHaveLength(before + 1);
    expect(history[0]).toMatchObject({ operation_type: 'Bruised Area Calculation', run_id: runId });
    // The original four fields are all there.
    expect(Object.keys(history[0]).sort()).toEqual([
      'operation_type',
      'organization',
      'run_id',
      'time_stamp',
      'username',
    ]);
    expect(
      (await api.post('/api-node/user/action', { operationType: 'Resize', run_id: 'no-such-run' }, alice.accessToken))
        .status,
    ).toBe(400);

    expect(await api.del(`/api-node/runs/${runId}`, alice.accessToken)).toMatchObject({ status: 200 });
    expect((await api.get(`/api-node/runs/${runId}`, alice.accessToken)).status).toBe(404);
    const after = (await api.get<{ run_id: string | null }[]>('/api-node/user/history', alice.accessToken)).body;
    expect(after).toHaveLength(before + 1);
    expect(after[0].run_id).toBeNull();
  });

  it('stores feature analyses too and lists runs in pages, by operation, date and file name', async () => {
    const carol = await signUp(api, 'Carol Labs');
    const analysed = await upload('/api-py/python/analyze', [['leaf-scan.png', png]], carol.accessToken, {
      features: '["rgb"]',
    });
    expect(analysed.status).toBe(200);
    const analyzeId = analysed.body[0].run_id as string;
    expect(analysed.body[0]).toMatchObject({ image_name: 'leaf-scan.png', run_id: analyzeId });
    const ids = [analyzeId];
    for (const name of ['lot-7.png', 'lot-8.png', 'other.png']) {
      const r = await bruise([[name, png]], carol.accessToken);
      ids.push(r.body[0].run_id as string);
    }
    type Page = { runs: { id: string; operation: string; item_count: number }[]; next_cursor: string | null };
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: { status: number; body: Page } = await api.get<Page>(
        `/api-node/runs?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        carol.accessToken,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.runs.map((r) => r.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([...ids].reverse());

    const analyses = await api.get<Page>('/api-node/runs?operation=analyze', carol.accessToken);
    expect(analyses.body.runs.map((r) => r.id)).toEqual([analyzeId]);
    const lots = await api.get<Page>('/api-node/runs?q=LOT-', carol.accessToken);
    expect(lots.body.runs.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    expect((await api.get<Page>('/api-node/runs?q=50%25', carol.accessToken)).body.runs).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await api.get<Page>(`/api-node/runs?from=${today}&to=${today}`, carol.accessToken)).body.runs).toHaveLength(
      4,
    );
    expect((await api.get<Page>(`/api-node/runs?to=${yesterday}`, carol.accessToken)).body.runs).toEqual([]);
    expect((await api.get('/api-node/runs?operation=resize', carol.accessToken)).status).toBe(400);
    expect((await api.get('/api-node/runs?cursor=garbage', carol.accessToken)).status).toBe(400);

    const features = text((await download(`/api-node/runs/${analyzeId}/export?format=csv`, carol.accessToken)).bytes);
    expect(features.split('\n')[0]).toBe('Image,mean_R,mean_G,mean_B,std_R,std_G,std_B');
    expect(features.split('\n')[1].startsWith('leaf-scan.png,')).toBe(true);
  });

  it('does not store calls made with a partner key from a browser page; server-side key calls are stored', async () => {
    const dave = await signUp(api, 'Dave Retail');
    const key = await api.post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'shop', allowedOrigins: ['https://shop.example'], kind: 'browser' },
      dave.accessToken,
    );
    expect(key.status).toBe(201);
    const fd = new FormData();
    fd.append('images', new Blob([png as BlobPart]), 'visitor.png');
    const widget = await fetch(server.url + '/api-py/python/bruise_detection/Classical', {
      method: 'POST',
      body: fd,
      headers: { Authorization: `Bearer ${key.body.key}`, Origin: 'https://shop.example' },
    });
    expect(widget.status).toBe(200);
    const [item] = (await widget.json()) as { run_id: string | null }[];
    expect(item.run_id).toBeNull();
    expect((await api.get<{ runs: unknown[] }>('/api-node/runs', dave.accessToken)).body.runs).toEqual([]);

    // A server key (server-to-server, no Origin): the owner's own batch work, stored under the owner.
    const serverKey = await api.post<{ key: string }>(
      '/api-node/api-keys',
      { name: 'batch', kind: 'server' },
      dave.accessToken,
    );
    expect(serverKey.status).toBe(201);
    const batch = await bruise([['batch.png', png]], serverKey.body.key);
    const runId = batch.body[0].run_id as string;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    const runs = await api.get<{ runs: { id: string }[] }>('/api-node/runs', dave.accessToken);
    expect(runs.body.runs.map((r) => r.id)).toEqual([runId]);
    const history = await api.get<{ run_id: string | null }[]>('/api-node/user/history', dave.accessToken);
    expect(history.body.map((h) => h.run_id)).toEqual([runId, null]);
  });

  const shared = sharedDir();
  if (!shared) console.warn(`stored runs, real photo: ${SHARED_MISSING}`);
  it.skipIf(!shared)('stores a real photo with its sha256 and size', async () => {
    const path = join(shared!, 'data/bruise-dev/senmango_real_lesions/images/anthracnose_088.jpg');
    const bytes = new Uint8Array(readFileSync(path));
    const { body } = await bruise([['anthracnose_088.jpg', bytes]]);
    const run = await api.get<{ items: { sha256: string; width: number; height: number; result: BruiseResultItem }[] }>(
      `/api-node/runs/${body[0].run_id as string}`,
      alice.accessToken,
    );
    const meta = await sharp(bytes).metadata();
    expect(run.body.items[0]).toMatchObject({ sha256: sha256(bytes), width: meta.width, height: meta.height });
    expect(run.body.items[0].result.bruise_percent).toBe(body[0].bruise_percent);
    expect(run.body.items[0].result.fruits.length).toBeGreaterThan(0);
  });
});
