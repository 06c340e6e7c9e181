import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { bruisedPairScene, sceneWithDisc } from '@mango/core/testing';
import { decodeImage, encodeImage } from '@mango/core/node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODELS_DIR, readManifest } from '@mango/models';
import { PINNED } from '@mango/models/testing';
import { SHARED_MISSING, sharedDir } from '@mango/core/testing/node';
import sharp from 'sharp';
import { client, signUp } from '../../testing/accounts.ts';
import { startTestServer, type TestServer } from '../../testing/index.ts';

async function form(files: [string, Uint8Array][], extra: Record<string, string> = {}) {
  const fd = new FormData();
  for (const [name, bytes] of files) fd.append('images', new Blob([bytes as BlobPart]), name);
  for (const [k, v] of Object.entries(extra)) fd.append(k, v);
  return fd;
}

describe('/api-py input handling', () => {
  let server: TestServer;
  let auth: Record<string, string> = {};
  beforeAll(async () => {
    server = await startTestServer({ maxUploadBytes: 300_000 });
    // signUp throws unless the registration answers 201 and the sign-in 200
    const { accessToken } = await signUp(client(server), 'Lab');
    auth = { Authorization: `Bearer ${accessToken}` };
  });
  afterAll(() => server.close());

  const post = (path: string, body: FormData | string, headers: Record<string, string> = {}) =>
    fetch(server.url + path, { method: 'POST', body, headers: { ...auth, ...headers } });

  it('requires a token or an API key', async () => {
    const png = await encodeImage(createImage(8, 8, [200, 100, 0, 255]), 'png');
    const res = await fetch(server.url + '/api-py/python/analyze', {
      method: 'POST',
      body: await form([['a.png', png]], { features: '["rgb"]' }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toHaveProperty('detail');
    const bad = await fetch(server.url + '/api-py/python/analyze', {
      method: 'POST',
      headers: { Authorization: 'Bearer mbt_not-a-real-key' },
      body: await form([['a.png', png]], { features: '["rgb"]' }),
    });
    expect(bad.status).toBe(401);
  });

  it('analyzes images and reports an undecodable one in its own item', async () => {
    const png = await encodeImage(createImage(8, 6, [200, 100, 0, 255]), 'png');
    const res = await post(
      '/api-py/python/analyze',
      await form(
        [
          ['a.png', png],
          ['b.jpg', new TextEncoder().encode('not an image')],
        ],
        { features: '["rgb","area"]' },
      ),
    );
    expect(res.status).toBe(200);
    const items = (await res.json()) as {
      image_name: string;
      features?: Record<string, Record<string, number>>;
      error?: string;
    }[];
    expect(items[0].image_name).toBe('a.png');
    expect(items[0].features!.rgb).toEqual({ mean_R: 200, mean_G: 100, mean_B: 0, std_R: 0, std_G: 0, std_B: 0 });
    expect(items[0].features!.area.area).toBe(48);
    // Every item carries the id of the stored run (issue 12), the failed one too.
    const runId = (items[0] as { run_id?: string }).run_id;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(items[1]).toEqual({
      image_name: 'b.jpg',
      error: 'b.jpg: not a supported image (JPEG or PNG expected)',
      code: 'UNSUPPORTED_IMAGE',
      run_id: runId,
    });
  });

  it('answers 400 {detail} for no images, no features and unknown feature ids', async () => {
    const png = await encodeImage(createImage(8, 8, [200, 100, 0, 255]), 'png');
    let res = await post('/api-py/python/analyze', await form([], { features: '["rgb"]' }));
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toMatch(/No images/);
    res = await post('/api-py/python/analyze', await form([['a.png', png]]));
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toMatch(/No features/);
    res = await post('/api-py/python/analyze', await form([['a.png', png]], { features: '["rgb","shininess"]' }));
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe('Unknown feature id: shininess');
  });

  it('refuses a non-multipart body, an empty file, a PDF and an oversized file on the bruise endpoint', async () => {
    let res = await post('/api-py/python/bruise_detection/DeepLearning', '{"images": []}', {
      'Content-Type': 'application/json',
    });
    expect(res.status).toBe(415);
    res = await post('/api-py/python/bruise_detection/DeepLearning', await form([['empty.jpg', new Uint8Array(0)]]));
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe('empty.jpg is empty (0 bytes)');
    const pdf = new TextEncoder().encode('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\n');
    res = await post('/api-py/python/bruise_detection/DeepLearning', await form([['scan.jpg', pdf]]));
    expect(res.status).toBe(415);
    expect((await res.json()).detail).toMatch(/^scan.jpg: not a supported image/);
    res = await post('/api-py/python/bruise_detection/Classical', await form([['big.png', new Uint8Array(400_000)]]));
    expect(res.status).toBe(413);
    // and the server is still serving
    expect((await fetch(server.url + '/healthz')).status).toBe(200);
  });

  it('runs the shipped bruise model on DeepLearning and says so; Classical runs no model', async () => {
    const shipped = readManifest(MODELS_DIR).models.find((m) => m.task === 'bruise-segmentation')!;
    const photo = readFileSync(join(MODELS_DIR, 'fixtures/sample-1.png'));
    const dl = await post('/api-py/python/bruise_detection/DeepLearning', await form([['sample-1.png', photo]]));
    expect(dl.status).toBe(200);
    const [item] = (await dl.json()) as Record<string, unknown>[];
    expect(item).toMatchObject({ method: 'model', model_id: shipped.id, model_sha256: shipped.sha256 });
    // the value @mango/models/testing pins for this photo through the plugin
    expect(item.bruise_percent as number).toBeCloseTo(PINNED['sample-1.png'].percent, 1);
    // The wire item (product-spec.md section 7): the original five fields first, the overlay as a JPEG
    // data URL made at the server's edge from the plugin's overlay image.
    expect(Object.keys(item).slice(0, 5)).toEqual([
      'filename',
      'total_mango_pixels',
      'bruise_percent',
      'non_bruise_percent',
      'overlay_img',
    ]);
    expect(item.filename).toBe('sample-1.png');
    expect(item).not.toHaveProperty('images');
    const [head, base64] = (item.overlay_img as string).split(',');
    expect(head).toBe('data:image/jpeg;base64');
    expect((await decodeImage(Buffer.from(base64, 'base64'))).format).toBe('jpeg');
    const cl = await post('/api-py/python/bruise_detection/Classical', await form([['sample-1.png', photo]]));
    const [classical] = (await cl.json()) as Record<string, unknown>[];
    expect(classical.method).toBe('classical');
    expect(classical).not.toHaveProperty('model_id');
  });

  it('keep_going=true: the good photo is scored and each bad one answered in its place with its reason and code', async () => {
    const photo = readFileSync(join(MODELS_DIR, 'fixtures/sample-1.png'));
    const jpeg = await encodeImage(createImage(64, 48, [200, 150, 40, 255]), 'jpeg');
    // a JPEG cut after its headers: it starts like one and cannot be decoded
    const corrupt = jpeg.subarray(0, Math.floor(jpeg.length / 3));
    const files: [string, Uint8Array][] = [
      ['notes.jpg', new TextEncoder().encode('a text file renamed .jpg')],
      ['sample-1.png', photo],
      ['empty.jpg', new Uint8Array(0)],
      ['cut.jpg', corrupt],
    ];
    // without it, the first bad photo fails the call (nothing stored)
    const refused = await post('/api-py/python/bruise_detection/Classical', await form(files));
    expect(refused.status).toBe(415);
    expect((await refused.json()).detail).toMatch(/^notes.jpg: not a supported image/);

    const res = await post('/api-py/python/bruise_detection/Classical', await form(files, { keep_going: 'true' }));
    expect(res.status).toBe(200);
    const items = (await res.json()) as Record<string, unknown>[];
    expect(items.map((i) => i.filename)).toEqual(['notes.jpg', 'sample-1.png', 'empty.jpg', 'cut.jpg']);
    const runId = items[1].run_id as string;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(items[0]).toEqual({
      filename: 'notes.jpg',
      error: 'notes.jpg: not a supported image (JPEG or PNG expected)',
      code: 'UNSUPPORTED_IMAGE',
      run_id: runId,
    });
    expect(items[2]).toEqual({
      filename: 'empty.jpg',
      error: 'empty.jpg is empty (0 bytes)',
      code: 'EMPTY_FILE',
      run_id: runId,
    });
    expect(items[3]).toMatchObject({ filename: 'cut.jpg', code: 'CORRUPT_IMAGE', run_id: runId });
    expect(items[3].error).toMatch(/^cut.jpg: /);
    expect(items[1].bruise_percent as number).toBeGreaterThan(0);
    expect(items[1].overlay_img as string).toMatch(/^data:image\/jpeg;base64,/);
    // the stored run keeps all four photos, the bad ones with their reason
    const run = (await (await fetch(`${server.url}/api-node/runs/${runId}`, { headers: auth })).json()) as {
      items: { filename: string; result: { error?: string; bruise_percent?: number } }[];
    };
    expect(run.items.map((i) => i.filename)).toEqual(['notes.jpg', 'sample-1.png', 'empty.jpg', 'cut.jpg']);
    expect(run.items.map((i) => typeof i.result.error)).toEqual(['string', 'undefined', 'string', 'string']);
    expect(run.items[1].result.bruise_percent).toBe(items[1].bruise_percent);
  });

  it('reference_mm: the scale from a 25 mm disc in the photo (scale_source, reference), the disc not counted as fruit', async () => {
    const { image, areas } = sceneWithDisc(24, 11);
    const jpeg = await encodeImage(image, 'jpeg', { quality: 92 });
    const res = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['disc.jpg', jpeg]], { reference_mm: '25' }),
    );
    expect(res.status).toBe(200);
    const [item] = (await res.json()) as {
      scale_source: string;
      px_per_cm: number;
      reference: { x: number; y: number; diameter_px: number; confidence: number };
      fruits: { area_cm2: number }[];
    }[];
    expect(item.scale_source).toBe('reference');
    expect(item.fruits).toHaveLength(2);
    expect(Math.abs(item.px_per_cm / 24 - 1)).toBeLessThan(0.01);
    expect(item.reference.diameter_px).toBeCloseTo(60, 0);
    expect(Math.abs(item.fruits[0].area_cm2 / (areas[1] / 24 ** 2) - 1)).toBeLessThan(0.02);
    // a typed scale wins; a bad diameter is a 400 naming the field
    const given = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['disc.jpg', jpeg]], { reference_mm: '25', px_per_cm: '30' }),
    );
    const [g] = (await given.json()) as { scale_source: string; px_per_cm: number }[];
    expect([g.scale_source, g.px_per_cm]).toEqual(['given', 30]);
    const bad = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['disc.jpg', jpeg]], { reference_mm: '0' }),
    );
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toBe('`reference_mm` must be a number from 5 to 200');
  });

  it('scale_status and warnings; require_scale makes a reference not found a 400 with the reason', async () => {
    const { image } = sceneWithDisc(24, 11);
    const withDisc = await encodeImage(image, 'jpeg', { quality: 92 });
    // two mangoes and no reference object
    const noDisc = await encodeImage(bruisedPairScene().image, 'jpeg', { quality: 92 });
    const call = async (bytes: Uint8Array, fields: Record<string, string>) =>
      post('/api-py/python/bruise_detection/Classical', await form([['photo.jpg', bytes]], fields));
    type Item = { scale_status: string; warnings?: string[]; px_per_cm?: number };
    const found = (await (await call(withDisc, { reference_mm: '25', require_scale: 'true' })).json()) as Item[];
    expect([found[0].scale_status, found[0].warnings]).toEqual(['found', undefined]);
    const none = (await (await call(noDisc, {})).json()) as Item[];
    expect(none[0].scale_status).toBe('none');
    const missing = await call(noDisc, { reference_mm: '25' });
    expect(missing.status).toBe(200);
    const [m] = (await missing.json()) as Item[];
    expect(m.scale_status).toBe('not-found');
    expect(m.px_per_cm).toBeUndefined();
    expect(m.warnings).toEqual([
      'no 25 mm reference object found in the photo: it has no scale, so no cm² figures and no grade that needs them',
    ]);
    const required = await call(noDisc, { reference_mm: '25', require_scale: 'true' });
    expect(required.status).toBe(400);
    expect((await required.json()).detail).toContain('no 25 mm reference object found in the photo');
  });

  it('per_fruit: each fruit of the bruise result measured on its own, in cm² from reference_mm; the per-image values unchanged; a fruits table in the stored run', async () => {
    const { image, areas } = sceneWithDisc(24, 11);
    const jpeg = await encodeImage(image, 'jpeg', { quality: 92 });
    const features = '["area","perimeter","rgb"]';
    type Item = {
      features: Record<string, Record<string, number>>;
      fruits?: {
        fruit: number;
        pixels: number;
        features: Record<string, Record<string, number>>;
        scaled?: Record<string, number>;
      }[];
      fruit_masks?: { method: string; px_per_cm: number; scale_source: string };
      run_id: string;
    };
    const plain = (await (
      await post('/api-py/python/analyze', await form([['disc.jpg', jpeg]], { features }))
    ).json()) as Item[];
    const res = await post(
      '/api-py/python/analyze',
      await form([['disc.jpg', jpeg]], { features, per_fruit: 'true', reference_mm: '25' }),
    );
    expect(res.status).toBe(200);
    const [item] = (await res.json()) as Item[];
    expect(item.features).toEqual(plain[0].features);
    expect(plain[0].fruits).toBeUndefined();
    // the bruise endpoint's fruit, in its order, with its figures
    const bruised = await post(
      '/api-py/python/bruise_detection/DeepLearning',
      await form([['disc.jpg', jpeg]], { reference_mm: '25' }),
    );
    const [b] = (await bruised.json()) as {
      method: string;
      px_per_cm: number;
      fruits: { pixels: number; bbox: object }[];
    }[];
    expect(item.fruit_masks).toMatchObject({ method: b.method, px_per_cm: b.px_per_cm, scale_source: 'reference' });
    expect(item.fruits!.map((f) => f.fruit)).toEqual([1, 2]);
    for (const [i, f] of item.fruits!.entries()) {
      expect(f.pixels).toBe(b.fruits[i].pixels);
      expect(f.features.area.area).toBe(f.pixels);
      expect(f.scaled!.area_cm2).toBeCloseTo(f.pixels / b.px_per_cm ** 2, 10);
      // the ellipse drawn for this fruit, within 3 %
      expect(Math.abs(f.scaled!.area_cm2 / (areas[i + 1] / 24 ** 2) - 1)).toBeLessThan(0.03);
    }
    const csv = await fetch(`${server.url}/api-node/runs/${item.run_id}/export?format=csv&table=fruits`, {
      headers: auth,
    });
    expect(csv.status).toBe(200);
    const [header, ...rows] = (await csv.text()).trim().split('\n');
    expect(header.split(',').slice(0, 3)).toEqual(['image', 'fruit', 'bbox_x']);
    expect(header.split(',')).toContain('area_cm2');
    expect(rows.map((r) => r.split(',').slice(0, 2).join(','))).toEqual(['disc.jpg,1', 'disc.jpg,2']);
    // a scale without per_fruit is a 400
    const bad = await post('/api-py/python/analyze', await form([['disc.jpg', jpeg]], { features, px_per_cm: '20' }));
    expect(bad.status).toBe(400);
    expect((await bad.json()).detail).toBe('`px_per_cm` and `reference_mm` go with `per_fruit`');
  });

  it('grades: codex-mango per fruit with a reference scale (stored run and its per-fruit export too); 400 without a scale', async () => {
    const { image } = sceneWithDisc(24, 12);
    // a 1.5 cm² bruise (about 864 px at 24 px/cm) on the left fruit: Class I in any size group
    const r = Math.sqrt(864 / Math.PI);
    for (let y = 0; y < image.height; y++)
      for (let x = 0; x < image.width; x++) {
        if ((x - 250) ** 2 + (y - 270) ** 2 > r * r) continue;
        image.data.set([95, 60, 25], (y * image.width + x) * 4);
      }
    const jpeg = await encodeImage(image, 'jpeg', { quality: 92 });
    const noScale = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['lot.jpg', jpeg]], { grades: 'codex-mango' }),
    );
    expect(noScale.status).toBe(400);
    expect((await noScale.json()).detail).toMatch(/^grades codex-mango grades on bruise area in cm² and needs a scale/);
    const unknown = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['lot.jpg', jpeg]], { grades: 'usda' }),
    );
    expect(unknown.status).toBe(400);

    const res = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['lot.jpg', jpeg]], { reference_mm: '25', grades: 'codex-mango' }),
    );
    expect(res.status).toBe(200);
    const [item] = (await res.json()) as {
      grades: string;
      run_id: string;
      fruits: { grade: string; size_group: string; size_source: string; weight_g: number; bruise_area_cm2: number }[];
    }[];
    expect(item.grades).toBe('codex-mango');
    expect(item.fruits).toHaveLength(2);
    const [bruised, clean] = item.fruits;
    expect(bruised.bruise_area_cm2).toBeGreaterThan(1);
    expect(bruised.bruise_area_cm2).toBeLessThan(2);
    expect(bruised).toMatchObject({ grade: 'Class I', size_source: 'area-estimate' });
    expect(clean).toMatchObject({ grade: 'Extra', size_source: 'area-estimate' });
    expect(['A', 'B', 'C']).toContain(bruised.size_group);
    // the stored run's per-fruit export carries the grade columns
    const csv = await fetch(`${server.url}/api-node/runs/${item.run_id}/export?format=csv`, { headers: auth });
    expect(csv.status).toBe(200);
    const [header, first, second] = (await csv.text()).trim().split(/\r?\n/);
    const col = header.split(',').indexOf('grade');
    expect(col).toBeGreaterThan(0);
    expect([first.split(',')[col], second.split(',')[col]]).toEqual(['Class I', 'Extra']);

    // percent needs no scale (the disc is then one more object: 1.0 % bruise on the left fruit is B)
    const pct = await post(
      '/api-py/python/bruise_detection/Classical',
      await form([['lot.jpg', jpeg]], { grades: 'percent' }),
    );
    const [p] = (await pct.json()) as { grades: string; fruits: { grade: string; bruise_percent: number }[] }[];
    expect(p.grades).toBe('percent');
    expect(p.fruits[0].bruise_percent).toBeGreaterThan(1);
    expect(p.fruits.map((f) => f.grade)).toEqual(['B', 'A', 'A']);
  });

  const shared = sharedDir();
  it.skipIf(!shared)(
    `quality flags on each item; strict_quality refuses a flagged photo with its reason${shared ? '' : ` (${SHARED_MISSING})`}`,
    async () => {
      const clean = readFileSync(
        join(shared!, 'data/bruise-dev/synthetic_composites/images/syn_senmango_healthy_188.jpg'),
      );
      const q10 = new Uint8Array(await sharp(clean).jpeg({ quality: 10 }).toBuffer());
      const res = await post(
        '/api-py/python/bruise_detection/Classical',
        await form([
          ['clean.jpg', clean],
          ['q10.jpg', q10],
        ]),
      );
      expect(res.status).toBe(200);
      const [ok, flagged] = (await res.json()) as { quality: { flags: { id: string; value: number }[] } }[];
      expect(ok.quality).toEqual({ flags: [] });
      expect(flagged.quality.flags.map((f) => [f.id, f.value])).toEqual([['jpeg-compression', 10]]);
      // strict: the flagged photo is refused (422) with the reason in words and figures
      const strict = await post(
        '/api-py/python/bruise_detection/Classical',
        await form([['q10.jpg', q10]], { strict_quality: 'true' }),
      );
      expect(strict.status).toBe(422);
      expect((await strict.json()).detail).toMatch(
        /^q10\.jpg: refused by strict quality: heavy JPEG compression: the file was saved at quality 10 .*below 40/,
      );
      const passes = await post(
        '/api-py/python/bruise_detection/Classical',
        await form([['clean.jpg', clean]], { strict_quality: '1' }),
      );
      expect(passes.status).toBe(200);
      const bad = await post(
        '/api-py/python/bruise_detection/Classical',
        await form([['clean.jpg', clean]], { strict_quality: 'maybe' }),
      );
      expect(bad.status).toBe(400);
    },
  );

  it('remove_background wants exactly one image', async () => {
    const png = await encodeImage(createImage(8, 8, [200, 100, 0, 255]), 'png');
    const res = await post(
      '/api-py/python/remove_background',
      await form([
        ['a.png', png],
        ['b.png', png],
      ]),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe('send exactly one image per request');
  });
});
