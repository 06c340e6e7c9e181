/**
 * The Python client (clients/python) against a real server, from `npm test` (issue 27 item 9): the
 * package is installed with pip into a fresh virtual environment (`pip install ./clients/python`,
 * offline: `--no-build-isolation --no-index`, with Debian's setuptools, wheel and pandas from the
 * system site packages), then its unittest suite and its example run against a server started here.
 * Skipped, with a message, when /usr/bin/python3 or its venv module is absent (`.ci/run` installs
 * python3-venv).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeImage } from '@mango/core/node';
import { applyLightCast, bruisedPairScene, renderPhotographedCard } from '@mango/core/testing';
import { SHARED_MISSING, loadImageFile, sharedDir } from '@mango/core/testing/node';
import { client, serverApiKey, signUp, startTestServer, type TestServer } from '@mango/server/testing';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';

function pythonReady(): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} is absent`;
  try {
    execFileSync(PYTHON, ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'python3-venv is not installed (apt-get install -y python3-venv)';
  }
}
const missing = pythonReady();
if (missing) console.warn(`clients/python: skipped, ${missing}`);

/** A real dev photo for the colour-card test (a ColorChecker is drawn into it), when ../shared is there. */
const shared = sharedDir();
const cardSource = shared && join(shared, 'data/bruise-dev/synthetic_composites/images/syn_mangodc_3-Center_2.jpg');
const haveCard = !!cardSource && existsSync(cardSource);
if (!missing && !haveCard) console.warn(`clients/python: the colour-card test is ${SHARED_MISSING}`);

describe.skipIf(missing !== null)('Python client against a real server', () => {
  let server: TestServer;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let venvPython: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mango-python-'));
    // a copy of the package: pip's in-tree build leaves build/ and *.egg-info beside the sources
    const source = join(dir, 'client');
    cpSync(import.meta.dirname, source, {
      recursive: true,
      filter: (p) => !/(__pycache__|\.egg-info|[\\/]build)$/.test(p),
    });
    const venv = join(dir, 'venv');
    const made = run(PYTHON, ['-m', 'venv', '--system-site-packages', venv]).then(() =>
      run(join(venv, 'bin', 'pip'), ['install', '--no-build-isolation', '--no-index', '--quiet', source]),
    );
    // a small queue cap: the client's Retry-After test fills it with one job
    server = await startTestServer({ workerThreads: 1, maxQueuedPhotosPerUser: 4 });
    const api = client(server);
    const user = await signUp(api, 'Python Lab');
    const photos = join(dir, 'photos');
    mkdirSync(photos);
    const png = await encodeImage(bruisedPairScene().image, 'png');
    for (const name of ['cv-keitt_day01_trt-wax_fruit5.png', 'cv-keitt_day04_trt-wax_fruit5.png', 'IMG_0001.png'])
      writeFileSync(join(photos, name), png);
    if (haveCard) {
      // the card as the CLI's and the server's colour-card tests draw it (36 px patch pitch), under 3500 K
      const pose = { x: 1340, y: 1130, pitchPx: 36, angleDeg: 160, tiltX: 0.03 };
      const card = applyLightCast(renderPhotographedCard(await loadImageFile(cardSource), pose), 3500, 0);
      // beside the photos folder, which the example scores whole
      writeFileSync(join(dir, 'card.png'), await encodeImage(card, 'png'));
    }
    writeFileSync(
      join(photos, 'meta.csv'),
      'image,tray\ncv-keitt_day01_trt-wax_fruit5.png,T1\ncv-keitt_day04_trt-wax_fruit5.png,T2\n',
    );
    env = {
      ...process.env,
      MANGO_URL: server.url,
      MANGO_EMAIL: user.email,
      MANGO_PASSWORD: user.password,
      MANGO_API_KEY: await serverApiKey(api, user.accessToken),
      MANGO_PHOTOS: photos,
      ...(haveCard ? { MANGO_CARD_PHOTO: join(dir, 'card.png') } : {}),
      PYTHONDONTWRITEBYTECODE: '1',
    };
    await made;
    venvPython = join(venv, 'bin', 'python');
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs with pip and passes its unittest suite (sign-in, API key, any option by its wire name, keep_going, per_fruit, jobs, runs, exports at full resolution, annotations, re-score, Retry-After, colour card, meta)', async () => {
    const tests = join(import.meta.dirname, 'tests');
    // the installed package, not the sources: the tests run from outside the source folder
    const r = await run(venvPython, ['-m', 'unittest', 'discover', '-s', tests, '-v'], { env, cwd: dir }).catch(
      (e: { stdout: string; stderr: string }) => e,
    );
    const out = `${r.stdout}\n${r.stderr}`;
    expect(out, out).toMatch(/Ran 13 tests/);
    if (haveCard) {
      expect(out, out).toMatch(/\nOK\n/);
      expect(out).not.toMatch(/skipped/);
    } else expect(out, out).toMatch(/\nOK \(skipped=1\)\n/);
  }, 180_000);

  it('runs its example: a job with a name pattern, then each fruit_id over the days and a pandas table', async () => {
    const r = await run(venvPython, ['-m', 'mango_client.example', env.MANGO_PHOTOS!], { env, cwd: dir });
    expect(r.stderr).toContain('warning: IMG_0001.png: the file name does not match the metadata pattern');
    expect(r.stdout).toMatch(/^run [0-9a-f-]{36}: 3 photo\(s\) scored, 0 failed, \d+ fruit$/m);
    // the same fruit (fruit_id 5) on day 01 and day 04, its mean bruise % from the stored per-fruit table
    expect(r.stdout).toMatch(/^fruit_id 5 day 01: mean bruise \d+\.\d\d % over \d+ fruit$/m);
    expect(r.stdout).toMatch(/^fruit_id 5 day 04: mean bruise \d+\.\d\d % over \d+ fruit$/m);
    expect(r.stdout).toMatch(/treatment\s+day/);
    expect(r.stdout).toMatch(/^wax\s+1(?:\.0)?\s+\d+\s+\d+\.\d+/m);
  }, 120_000);
});
