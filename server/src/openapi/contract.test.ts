/**
 * The document against the server (issue 24): every route of GET /api/openapi.json gets real
 * requests over HTTP, and each answer's status, media type and body must be the ones the document
 * gives for that route (JSON bodies checked with a JSON Schema validator against the route's
 * response schema; files by their media type). The routes come from the document: a documented
 * route without an example request fails, and so does an example of a route it does not document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCocoRle } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { followJob } from '@mango/core/jobs';
import { bruisedPairScene } from '@mango/core/testing';
import { startTestServer, TEST_DATABASES, type TestServer } from '../testing/index.ts';
import { client, mailedCode, newUser, signUp, type SignedIn } from '../testing/accounts.ts';
import { documentValidator, type OpenApiDocument, type OpenApiOperation } from '../testing/openapi.ts';

type Operation = OpenApiOperation;
type Document = OpenApiDocument;

/** What the example requests use: the server, a user whose runs and jobs they read, fresh users. */
interface Tools {
  server: TestServer;
  alice: SignedIn;
  /** a new user, for the requests that change or end a sign-in */
  fresh(): Promise<SignedIn>;
  /** one of alice's stored runs (a bruise call), made once */
  run(): Promise<string>;
  /** one of alice's batch jobs, run to its end, made once */
  job(): Promise<string>;
  png: Uint8Array;
}

type Send = (t: Tools) => Promise<Response>;
/** An example request and the status it must get. */
type Example = [status: number, send: Send];

interface Call {
  token?: string;
  json?: unknown;
  body?: BodyInit;
  headers?: Record<string, string>;
}

const call = (t: Tools, method: string, path: string, o: Call = {}) =>
  fetch(t.server.url + path, {
    method,
    headers: {
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...(o.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...o.headers,
    },
    body: o.json !== undefined ? JSON.stringify(o.json) : o.body,
  });

/** Corrected masks of the test photo (480 x 240; `side`: another size): a fruit with a lesion. */
function truthBody(t: Tools, side?: number): Call {
  const [w, h] = side ? [side, side] : [480, 240];
  const fruit = new Uint8Array(w * h).map((_, i) => (i % w > 5 && i % w < 15 && i / w > 5 && i / w < 15 ? 1 : 0));
  const bruise = fruit.map((v, i) => (v && i % w < 8 ? 1 : 0));
  return {
    token: t.alice.accessToken,
    json: { fruit: encodeCocoRle(fruit, w, h), bruise: encodeCocoRle(bruise, w, h) },
  };
}

/** A multipart form of text fields and `images` files. */
function form(fields: Record<string, string>, images: [string, Uint8Array][]): FormData {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  for (const [name, bytes] of images) fd.append('images', new Blob([bytes as BlobPart]), name);
  return fd;
}

const upload = (
  t: Tools,
  path: string,
  fields: Record<string, string>,
  images: [string, Uint8Array][],
  token?: string,
) => call(t, 'POST', path, { token, body: form(fields, images) });

const NOT_AN_IMAGE = new TextEncoder().encode('not an image');
const profile = (email: string) => ({ name: 'Alice', email, phone: '0800000000', country: 'Thailand' });

/** The run of alice's batch job (a bruise run scored by the model). */
async function jobRun(t: Tools): Promise<string> {
  const res = await call(t, 'GET', `/api-node/jobs/${await t.job()}`, { token: t.alice.accessToken });
  return ((await res.json()) as { run_id: string }).run_id;
}

/** The model in force (GET /api-node/models). */
async function shippedModel(t: Tools): Promise<string> {
  const res = await call(t, 'GET', '/api-node/models', { token: t.alice.accessToken });
  return Object.values(((await res.json()) as { active: Record<string, string> }).active)[0];
}

const rescoreBody = (t: Tools, model_id: string): Call => ({ token: t.alice.accessToken, json: { model_id } });

/** A server API key of alice's (runs and jobs take it), or a browser key for `origin`. */
async function apiKey(t: Tools, origin?: string): Promise<{ id: number; key: string }> {
  const res = await call(t, 'POST', '/api-node/api-keys', {
    token: t.alice.accessToken,
    json: origin ? { name: 'Shop', allowedOrigins: [origin], kind: 'browser' } : { name: 'Lab', kind: 'server' },
  });
  if (res.status !== 201) throw new Error(`api key: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: number; key: string };
}

/** The file name of an installed model (the widget's manifest lists the repository's model). */
async function installedModel(t: Tools): Promise<string> {
  const manifest = (await (await call(t, 'GET', '/widget/models/manifest.json')).json()) as {
    models: { file: string }[];
  };
  if (!manifest.models[0])
    throw new Error('no model is installed: GET /widget/models/{file} has nothing to answer 200 with');
  return manifest.models[0].file;
}

/** The example requests of every documented route, by "METHOD path" as the document writes it. */
/** GET the first overlay of a classical bruise job's run, sent with or without keep_overlays. */
async function jobOverlay(t: Tools, keep: boolean) {
  const fields = { operation: 'bruise', options: '{"method":"classical"}', ...(keep ? { keep_overlays: 'true' } : {}) };
  const res = await upload(t, '/api-node/jobs', fields, [['a.png', t.png]], t.alice.accessToken);
  const { id } = (await res.json()) as { id: string };
  const end = await followJob(t.server.url, id, t.alice.accessToken);
  return call(t, 'GET', `/api-node/runs/${end.run_id}/items/0/overlay`, { token: t.alice.accessToken });
}

const EXAMPLES: Record<string, Example[]> = {
  'GET /healthz': [[200, (t) => call(t, 'GET', '/healthz')]],
  'GET /api/openapi.json': [[200, (t) => call(t, 'GET', '/api/openapi.json')]],

  'POST /api-node/register': [
    [201, (t) => call(t, 'POST', '/api-node/register', { json: newUser() })],
    [400, (t) => call(t, 'POST', '/api-node/register', { json: { ...newUser(), password: 'short' } })],
    [409, (t) => call(t, 'POST', '/api-node/register', { json: { ...newUser(), username: t.alice.username } })],
    [
      415,
      (t) =>
        call(t, 'POST', '/api-node/register', {
          body: JSON.stringify(newUser()),
          headers: { 'content-type': 'text/plain' },
        }),
    ],
  ],
  'POST /api-node/login': [
    [200, (t) => call(t, 'POST', '/api-node/login', { json: { email: t.alice.email, password: t.alice.password } })],
    [401, (t) => call(t, 'POST', '/api-node/login', { json: { email: t.alice.username, password: 'wrong-password' } })],
    [400, (t) => call(t, 'POST', '/api-node/login', { json: {} })],
  ],
  'POST /api-node/refresh': [
    [
      200,
      async (t) => call(t, 'POST', '/api-node/refresh', { json: { refreshToken: (await t.fresh()).refreshToken } }),
    ],
    [401, (t) => call(t, 'POST', '/api-node/refresh', { json: { refreshToken: 'not-a-refresh-token' } })],
  ],
  'POST /api-node/logout': [
    [200, async (t) => call(t, 'POST', '/api-node/logout', { json: { refreshToken: (await t.fresh()).refreshToken } })],
    [400, (t) => call(t, 'POST', '/api-node/logout', { json: {} })],
  ],
  'GET /api-node/protected': [
    [200, (t) => call(t, 'GET', '/api-node/protected', { token: t.alice.accessToken })],
    [401, (t) => call(t, 'GET', '/api-node/protected')],
  ],
  'GET /api-node/user/profile': [
    [200, (t) => call(t, 'GET', '/api-node/user/profile', { token: t.alice.accessToken })],
    [401, (t) => call(t, 'GET', '/api-node/user/profile', { token: 'not-a-token' })],
  ],
  'PUT /api-node/user/profile': [
    [
      200,
      (t) => call(t, 'PUT', '/api-node/user/profile', { token: t.alice.accessToken, json: profile(t.alice.email) }),
    ],
    [400, (t) => call(t, 'PUT', '/api-node/user/profile', { token: t.alice.accessToken, json: profile('') })],
    [401, (t) => call(t, 'PUT', '/api-node/user/profile', { json: profile(t.alice.email) })],
  ],
  'POST /api-node/user/email/confirm': [
    [
      200,
      async (t) => {
        const u = await t.fresh();
        const email = `new.${u.email}`;
        const json = { ...profile(email), currentPassword: u.password };
        const changed = await call(t, 'PUT', '/api-node/user/profile', { token: u.accessToken, json });
        if (changed.status !== 200) throw new Error(`profile: ${changed.status}`);
        const code = (await mailedCode(t.server, email))?.code;
        return call(t, 'POST', '/api-node/user/email/confirm', { token: u.accessToken, json: { code } });
      },
    ],
    [
      400,
      (t) => call(t, 'POST', '/api-node/user/email/confirm', { token: t.alice.accessToken, json: { code: '000000' } }),
    ],
    [401, (t) => call(t, 'POST', '/api-node/user/email/confirm', { json: { code: '000000' } })],
  ],
  'GET /api-node/user/history': [
    [200, (t) => call(t, 'GET', '/api-node/user/history', { token: t.alice.accessToken })],
    [401, (t) => call(t, 'GET', '/api-node/user/history')],
  ],
  'POST /api-node/user/action': [
    [
      201,
      (t) =>
        call(t, 'POST', '/api-node/user/action', { token: t.alice.accessToken, json: { operationType: 'Resize' } }),
    ],
    [
      400,
      (t) => call(t, 'POST', '/api-node/user/action', { token: t.alice.accessToken, json: { operationType: 'Nope' } }),
    ],
    [401, (t) => call(t, 'POST', '/api-node/user/action', { json: { operationType: 'Resize' } })],
  ],
  'POST /api-node/forgot-password': [
    [200, (t) => call(t, 'POST', '/api-node/forgot-password', { json: { email: t.alice.email } })],
    [400, (t) => call(t, 'POST', '/api-node/forgot-password', { json: { email: ' ' } })],
  ],
  'POST /api-node/verify-code': [
    [
      200,
      async (t) => {
        const u = await t.fresh();
        await call(t, 'POST', '/api-node/forgot-password', { json: { email: u.email } });
        const code = (await mailedCode(t.server, u.email))?.code;
        return call(t, 'POST', '/api-node/verify-code', { json: { email: u.email, code } });
      },
    ],
    [
      400,
      async (t) => call(t, 'POST', '/api-node/verify-code', { json: { email: (await t.fresh()).email, code: '1' } }),
    ],
  ],
  'POST /api-node/change-password': [
    [
      200,
      async (t) => {
        const u = await t.fresh();
        const json = { currentPassword: u.password, newPassword: 'another-secret-1' };
        return call(t, 'POST', '/api-node/change-password', { token: u.accessToken, json });
      },
    ],
    [
      400,
      (t) =>
        call(t, 'POST', '/api-node/change-password', {
          token: t.alice.accessToken,
          json: { currentPassword: 'wrong-password', newPassword: 'another-secret-1' },
        }),
    ],
    [401, (t) => call(t, 'POST', '/api-node/change-password', { json: { newPassword: 'another-secret-1' } })],
  ],

  'GET /api-node/api-keys': [
    [
      200,
      async (t) => {
        await apiKey(t);
        return call(t, 'GET', '/api-node/api-keys', { token: t.alice.accessToken });
      },
    ],
    [401, (t) => call(t, 'GET', '/api-node/api-keys')],
  ],
  'POST /api-node/api-keys': [
    [201, (t) => call(t, 'POST', '/api-node/api-keys', { token: t.alice.accessToken, json: { name: 'Lab' } })],
    [400, (t) => call(t, 'POST', '/api-node/api-keys', { token: t.alice.accessToken, json: { name: '' } })],
    [401, (t) => call(t, 'POST', '/api-node/api-keys', { json: { name: 'Lab' } })],
  ],
  'DELETE /api-node/api-keys/{id}': [
    [200, async (t) => call(t, 'DELETE', `/api-node/api-keys/${(await apiKey(t)).id}`, { token: t.alice.accessToken })],
    [404, (t) => call(t, 'DELETE', '/api-node/api-keys/999999999', { token: t.alice.accessToken })],
  ],

  'GET /api-node/runs': [
    [
      200,
      async (t) => {
        await t.run();
        return call(t, 'GET', '/api-node/runs?limit=5', { token: t.alice.accessToken });
      },
    ],
    [200, async (t) => call(t, 'GET', '/api-node/runs', { token: (await apiKey(t)).key })],
    [400, (t) => call(t, 'GET', '/api-node/runs?limit=0', { token: t.alice.accessToken })],
    [401, (t) => call(t, 'GET', '/api-node/runs')],
    [
      403,
      async (t) => {
        const origin = 'https://shop.example.com';
        const { key } = await apiKey(t, origin);
        return call(t, 'GET', '/api-node/runs', { token: key, headers: { origin } });
      },
    ],
  ],
  'GET /api-node/runs/{id}': [
    [200, async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}`, { token: t.alice.accessToken })],
    [404, (t) => call(t, 'GET', '/api-node/runs/no-such-run', { token: t.alice.accessToken })],
  ],
  'GET /api-node/runs/{id}/export': [
    ...['csv', 'csv&table=images', 'json', 'provenance', 'zip', 'html', 'html&lang=th'].map((format): Example => [
      200,
      async (t) =>
        call(t, 'GET', `/api-node/runs/${await t.run()}/export?format=${format}`, { token: t.alice.accessToken }),
    ]),
    [
      400,
      async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}/export?format=pdf`, { token: t.alice.accessToken }),
    ],
    [404, (t) => call(t, 'GET', '/api-node/runs/no-such-run/export', { token: t.alice.accessToken })],
    [
      200,
      async (t) =>
        call(t, 'GET', `/api-node/runs/${await t.run()}/export?format=zip&resolution=full`, {
          token: t.alice.accessToken,
        }),
    ],
    // a run whose photos were not kept (as one made before runs kept them)
    [
      409,
      async (t) => {
        const res = await upload(
          t,
          '/api-py/python/bruise_detection/Classical',
          {},
          [['b.png', t.png]],
          t.alice.accessToken,
        );
        const [{ run_id }] = (await res.json()) as { run_id: string }[];
        await t.server.ctx.db.deleteFrom('run_photos').where('run_id', '=', run_id).execute();
        return call(t, 'GET', `/api-node/runs/${run_id}/export?format=zip&resolution=full`, {
          token: t.alice.accessToken,
        });
      },
    ],
    // a kind of run without a full-resolution export (a feature analysis)
    [
      422,
      async (t) => {
        const fields = { features: '["area"]' };
        const res = await upload(t, '/api-py/python/analyze', fields, [['c.png', t.png]], t.alice.accessToken);
        const [{ run_id }] = (await res.json()) as { run_id: string }[];
        return call(t, 'GET', `/api-node/runs/${run_id}/export?format=zip&resolution=full`, {
          token: t.alice.accessToken,
        });
      },
    ],
  ],
  'GET /api-node/runs/{id}/items/{position}/photo': [
    [200, async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}/items/0/photo`, { token: t.alice.accessToken })],
    [404, async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}/items/9/photo`, { token: t.alice.accessToken })],
  ],
  'PUT /api-node/runs/{id}/items/{position}/truth': [
    [201, async (t) => call(t, 'PUT', `/api-node/runs/${await t.run()}/items/0/truth`, truthBody(t))],
    [400, async (t) => call(t, 'PUT', `/api-node/runs/${await t.run()}/items/0/truth`, truthBody(t, 20))],
    [404, async (t) => call(t, 'PUT', `/api-node/runs/${await t.run()}/items/9/truth`, truthBody(t))],
  ],
  'GET /api-node/runs/{id}/items/{position}/truth': [
    [
      200,
      async (t) => {
        const id = await t.run();
        await call(t, 'PUT', `/api-node/runs/${id}/items/0/truth`, truthBody(t));
        return call(t, 'GET', `/api-node/runs/${id}/items/0/truth`, { token: t.alice.accessToken });
      },
    ],
    [404, async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}/items/9/truth`, { token: t.alice.accessToken })],
  ],
  'GET /api-node/runs/{id}/annotations': [
    [
      200,
      async (t) => {
        const id = await t.run();
        await call(t, 'PUT', `/api-node/runs/${id}/items/0/truth`, truthBody(t));
        return call(t, 'GET', `/api-node/runs/${id}/annotations?format=coco`, { token: t.alice.accessToken });
      },
    ],
    [
      400,
      async (t) =>
        call(t, 'GET', `/api-node/runs/${await t.run()}/annotations?format=x`, { token: t.alice.accessToken }),
    ],
    [404, (t) => call(t, 'GET', '/api-node/runs/no-such-run/annotations', { token: t.alice.accessToken })],
  ],
  'POST /api-node/runs/{id}/annotations': [
    [
      200,
      async (t) => {
        const id = await t.run();
        const coco = await call(t, 'GET', `/api-node/runs/${id}/annotations`, { token: t.alice.accessToken });
        return call(t, 'POST', `/api-node/runs/${id}/annotations`, {
          token: t.alice.accessToken,
          json: await coco.json(),
        });
      },
    ],
    [
      400,
      async (t) =>
        call(t, 'POST', `/api-node/runs/${await t.run()}/annotations`, { token: t.alice.accessToken, json: { a: 1 } }),
    ],
    [
      415,
      async (t) =>
        call(t, 'POST', `/api-node/runs/${await t.run()}/annotations`, {
          token: t.alice.accessToken,
          body: '{}',
          headers: { 'content-type': 'text/plain' },
        }),
    ],
  ],
  'GET /api-node/models': [[200, async (t) => call(t, 'GET', '/api-node/models', { token: t.alice.accessToken })]],
  'POST /api-node/runs/{id}/rescore': [
    [
      202,
      async (t) => call(t, 'POST', `/api-node/runs/${await jobRun(t)}/rescore`, rescoreBody(t, await shippedModel(t))),
    ],
    [400, async (t) => call(t, 'POST', `/api-node/runs/${await jobRun(t)}/rescore`, rescoreBody(t, 'no-such-model'))],
    // a run that used no model (the classical method)
    [
      400,
      async (t) => call(t, 'POST', `/api-node/runs/${await t.run()}/rescore`, rescoreBody(t, await shippedModel(t))),
    ],
    [404, async (t) => call(t, 'POST', '/api-node/runs/no-such-run/rescore', rescoreBody(t, 'x'))],
    [
      409,
      async (t) => {
        const res = await upload(t, '/api-node/jobs', { operation: 'bruise' }, [['k.png', t.png]], t.alice.accessToken);
        const end = await followJob(t.server.url, ((await res.json()) as { id: string }).id, t.alice.accessToken);
        await t.server.ctx.db.deleteFrom('run_photos').where('run_id', '=', end.run_id!).execute();
        return call(t, 'POST', `/api-node/runs/${end.run_id}/rescore`, rescoreBody(t, await shippedModel(t)));
      },
    ],
    [
      415,
      async (t) =>
        call(t, 'POST', `/api-node/runs/${await jobRun(t)}/rescore`, { token: t.alice.accessToken, body: 'x' }),
    ],
  ],
  'GET /api-node/runs/{id}/items/{position}/model-masks': [
    [
      200,
      async (t) =>
        call(t, 'GET', `/api-node/runs/${await t.run()}/items/0/model-masks`, { token: t.alice.accessToken }),
    ],
    [
      404,
      async (t) =>
        call(t, 'GET', `/api-node/runs/${await t.run()}/items/9/model-masks`, { token: t.alice.accessToken }),
    ],
  ],
  'GET /api-node/runs/{id}/items/{position}/overlay': [
    [200, (t) => jobOverlay(t, true)],
    // a run kept without full overlays (a job sent without keep_overlays; an /api-py call's run keeps them)
    [404, (t) => jobOverlay(t, false)],
    // no such photo in the run
    [
      404,
      async (t) => call(t, 'GET', `/api-node/runs/${await t.run()}/items/9/overlay`, { token: t.alice.accessToken }),
    ],
  ],
  'DELETE /api-node/runs/{id}': [
    [
      200,
      async (t) => {
        const res = await upload(
          t,
          '/api-py/python/analyze',
          { features: '["rgb"]' },
          [['a.png', t.png]],
          t.alice.accessToken,
        );
        const [{ run_id }] = (await res.json()) as { run_id: string }[];
        return call(t, 'DELETE', `/api-node/runs/${run_id}`, { token: t.alice.accessToken });
      },
    ],
    [404, (t) => call(t, 'DELETE', '/api-node/runs/no-such-run', { token: t.alice.accessToken })],
  ],

  'POST /api-node/jobs': [
    [202, (t) => upload(t, '/api-node/jobs', { operation: 'bruise' }, [['a.png', t.png]], t.alice.accessToken)],
    [400, (t) => upload(t, '/api-node/jobs', { operation: 'nope' }, [['a.png', t.png]], t.alice.accessToken)],
    [401, (t) => upload(t, '/api-node/jobs', { operation: 'bruise' }, [['a.png', t.png]])],
  ],
  'GET /api-node/jobs/{id}': [
    [200, async (t) => call(t, 'GET', `/api-node/jobs/${await t.job()}`, { token: t.alice.accessToken })],
    [404, (t) => call(t, 'GET', '/api-node/jobs/no-such-job', { token: t.alice.accessToken })],
  ],
  'GET /api-node/jobs/{id}/events': [
    [200, async (t) => call(t, 'GET', `/api-node/jobs/${await t.job()}/events`, { token: t.alice.accessToken })],
    [404, (t) => call(t, 'GET', '/api-node/jobs/no-such-job/events', { token: t.alice.accessToken })],
  ],
  'DELETE /api-node/jobs/{id}': [
    [200, async (t) => call(t, 'DELETE', `/api-node/jobs/${await t.job()}`, { token: t.alice.accessToken })],
    [404, (t) => call(t, 'DELETE', '/api-node/jobs/no-such-job', { token: t.alice.accessToken })],
  ],

  'POST /api-py/python/analyze': [
    [
      200,
      (t) =>
        upload(
          t,
          '/api-py/python/analyze',
          { features: '["rgb","area"]' },
          [
            ['a.png', t.png],
            ['b.jpg', NOT_AN_IMAGE],
          ],
          t.alice.accessToken,
        ),
    ],
    // per fruit, with a scale: the answer's `fruits` and `fruit_masks`
    [
      200,
      (t) =>
        upload(
          t,
          '/api-py/python/analyze',
          { features: '["area","perimeter"]', per_fruit: 'true', px_per_cm: '20' },
          [['a.png', t.png]],
          t.alice.accessToken,
        ),
    ],
    [400, (t) => upload(t, '/api-py/python/analyze', {}, [['a.png', t.png]], t.alice.accessToken)],
    [401, (t) => upload(t, '/api-py/python/analyze', { features: '["rgb"]' }, [['a.png', t.png]])],
  ],
  'POST /api-py/python/bruise_detection/DeepLearning': [
    [
      200,
      (t) => upload(t, '/api-py/python/bruise_detection/DeepLearning', {}, [['a.png', t.png]], t.alice.accessToken),
    ],
    [
      415,
      (t) =>
        upload(t, '/api-py/python/bruise_detection/DeepLearning', {}, [['b.jpg', NOT_AN_IMAGE]], t.alice.accessToken),
    ],
  ],
  'POST /api-py/python/bruise_detection/Classical': [
    [
      200,
      (t) =>
        upload(
          t,
          '/api-py/python/bruise_detection/Classical',
          { px_per_cm: '20' },
          [['a.png', t.png]],
          t.alice.accessToken,
        ),
    ],
    [400, (t) => upload(t, '/api-py/python/bruise_detection/Classical', {}, [], t.alice.accessToken)],
    [401, (t) => upload(t, '/api-py/python/bruise_detection/Classical', {}, [['a.png', t.png]], 'mbt_not-a-key')],
  ],
  'POST /api-py/python/remove_background': [
    [200, (t) => upload(t, '/api-py/python/remove_background', {}, [['a.png', t.png]], t.alice.accessToken)],
    [
      400,
      (t) =>
        upload(
          t,
          '/api-py/python/remove_background',
          {},
          [
            ['a.png', t.png],
            ['b.png', t.png],
          ],
          t.alice.accessToken,
        ),
    ],
  ],

  'GET /widget/ort/{file}': [
    [200, (t) => call(t, 'GET', '/widget/ort/ort.wasm.bundle.min.mjs')],
    [404, (t) => call(t, 'GET', '/widget/ort/nope.js')],
  ],
  'GET /widget/models/manifest.json': [[200, (t) => call(t, 'GET', '/widget/models/manifest.json')]],
  'GET /widget/models/{file}': [
    [200, async (t) => call(t, 'GET', `/widget/models/${await installedModel(t)}`)],
    [404, (t) => call(t, 'GET', '/widget/models/nope.onnx')],
  ],
};

/** `type/subtype` without parameters. */
const mediaType = (header: string | null) => (header ?? '').split(';')[0].trim().toLowerCase();

/** The data of each event of a Server-Sent Events body. */
const eventData = (text: string) =>
  text
    .split(/\n\n/)
    .map((block) =>
      block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim()),
    )
    .filter((lines) => lines.length > 0)
    .map((lines) => JSON.parse(lines.join('\n')) as unknown);

describe.each(TEST_DATABASES)('the OpenAPI document against the answers on %s', (database) => {
  let server: TestServer;
  let doc: Document;
  let tools: Tools;
  // the document's schemas, every object closed (openapi.ts in server/src/testing)
  const { validatorOf, errorsText } = documentValidator(() => doc);

  beforeAll(async () => {
    server = await startTestServer({}, { database });
    const api = client(server);
    doc = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Document;
    const alice = await signUp(api, 'Alice Farms');
    const png = await encodeImage(bruisedPairScene().image, 'png');
    const once = <T>(make: () => Promise<T>) => {
      let made: Promise<T> | undefined;
      return () => (made ??= make());
    };
    tools = {
      server,
      alice,
      png,
      fresh: () => signUp(api),
      run: once(async () => {
        const res = await upload(
          tools,
          '/api-py/python/bruise_detection/Classical',
          {},
          [['a.png', png]],
          alice.accessToken,
        );
        const [{ run_id }] = (await res.json()) as { run_id: string }[];
        return run_id;
      }),
      job: once(async () => {
        const res = await upload(tools, '/api-node/jobs', { operation: 'bruise' }, [['a.png', png]], alice.accessToken);
        const { id } = (await res.json()) as { id: string };
        await followJob(server.url, id, alice.accessToken);
        return id;
      }),
    };
  }, 60_000);
  afterAll(() => server?.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
    );

  it('has example requests for every documented route, and for no other', () => {
    const documented = operations().map((o) => o.key);
    expect(documented.length).toBeGreaterThan(30);
    expect(
      documented.filter((k) => !EXAMPLES[k]),
      'documented routes without an example request in contract.test.ts',
    ).toEqual([]);
    expect(
      Object.keys(EXAMPLES).filter((k) => !documented.includes(k)),
      'examples of routes the document does not have',
    ).toEqual([]);
    // A success and (where a caller can get one wrong) an error each.
    for (const k of documented)
      expect(
        EXAMPLES[k].some(([s]) => s < 300),
        k,
      ).toBe(true);
  });

  /** What is wrong with the answer `res` of route `op` to an example expecting `status` (nothing: []). */
  async function problemsOf(op: Operation, status: number, res: Response): Promise<string[]> {
    const type = mediaType(res.headers.get('content-type'));
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    const problems: string[] = [];
    if (res.status !== status) problems.push(`answered ${res.status} (${text.slice(0, 200)}), expected ${status}`);
    const documented = op.responses[String(res.status)];
    if (!documented) return [...problems, `status ${res.status} is not documented`];
    const content = Object.entries(documented.content ?? {});
    if (content.length === 0) return bytes.length === 0 ? problems : [...problems, 'a body where none is documented'];
    const media = content.find(([t]) => mediaType(t) === type);
    if (!media) return [...problems, `${type} is not documented (${content.map(([t]) => t).join(', ')})`];
    const schema = media[1].schema;
    if (type === 'application/json' && schema) {
      const validate = validatorOf(schema);
      if (!validate(JSON.parse(text))) problems.push(`body: ${errorsText(validate)}: ${text.slice(0, 300)}`);
    } else if (type === 'text/event-stream') {
      // Each `progress` event is a JobProgress.
      const validate = validatorOf({ $ref: '#/components/schemas/JobProgress' });
      const events = eventData(text);
      if (events.length === 0) problems.push('no events');
      for (const e of events) if (!validate(e)) problems.push(`event: ${errorsText(validate)}`);
    } else if (bytes.length === 0) problems.push(`an empty ${type} body`);
    return problems;
  }

  it('finds an answer that differs from the document', async () => {
    const health = doc.paths['/healthz'].get;
    const answer = (body: string, type = 'application/json', status = 200) =>
      problemsOf(health, 200, new Response(body, { status, headers: { 'content-type': type } }));
    expect(await answer('{"ok":true}')).toEqual([]);
    expect(await answer('{"ok":"yes"}')).toEqual([expect.stringMatching(/^body: .*must be boolean/)]);
    expect(await answer('{"ok":true,"extra":1}')).toEqual([expect.stringMatching(/additional properties/)]);
    expect(await answer('ok', 'text/plain')).toEqual(['text/plain is not documented (application/json)']);
    expect(await answer('{"ok":true}', 'application/json', 201)).toEqual([
      'answered 201 ({"ok":true}), expected 200',
      'status 201 is not documented',
    ]);
  });

  it('answers each example request with a status, media type and body the route documents', async () => {
    const failures: string[] = [];
    let requests = 0;
    for (const { key, op } of operations()) {
      for (const [status, send] of EXAMPLES[key] ?? []) {
        requests++;
        const problems = await send(tools).then(
          (res) => problemsOf(op, status, res),
          (e: unknown) => [`the example failed: ${String(e)}`],
        );
        failures.push(...problems.map((p) => `${key} (example ${status}): ${p}`));
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(operations().length * 2 - 5);
  }, 180_000);
});
