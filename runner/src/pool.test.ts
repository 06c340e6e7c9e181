import { afterEach, describe, expect, it } from 'vitest';
import { createImage } from '@mango/core';
import { encodeImage } from '@mango/core/node';
import { createJobPool, type JobPool } from './index.ts';

const resizeJob = async (name: string) => ({
  name,
  bytes: await encodeImage(createImage(64, 48, [200, 120, 30, 255]), 'png'),
  steps: [{ plugin: 'resize', options: { width: 8, keepAspect: true } }],
});

describe('bounded job pool', () => {
  let pool: JobPool | undefined;
  afterEach(() => pool?.destroy());

  it('refuses a job with BUSY when maxQueue jobs already wait, and serves again once they are done', async () => {
    pool = createJobPool({ threads: 1, maxQueue: 1 });
    const first = pool.run(await resizeJob('1.png'));
    const second = pool.run(await resizeJob('2.png'));
    expect(pool.pending).toBe(2);
    await expect(pool.run(await resizeJob('3.png'))).rejects.toMatchObject({ code: 'BUSY', status: 503 });
    expect((await first).ok).toBe(true);
    expect((await second).ok).toBe(true);
    expect(pool.pending).toBe(0);
    expect((await pool.run(await resizeJob('4.png'))).ok).toBe(true);
  });

  it('stops a job over the time limit with TIMED_OUT', async () => {
    pool = createJobPool({ threads: 1, timeoutMs: 1 });
    const r = await pool.run(await resizeJob('slow.png'));
    expect(r).toEqual({
      ok: false,
      name: 'slow.png',
      error: {
        code: 'TIMED_OUT',
        status: 422,
        message: 'slow.png: processing took longer than the limit of 0.001 s per photo',
      },
    });
    const relaxed = createJobPool({ threads: 1, timeoutMs: 60_000 });
    try {
      expect((await relaxed.run(await resizeJob('ok.png'))).ok).toBe(true);
    } finally {
      await relaxed.destroy();
    }
  });

  it('readAhead: one thread takes a second job while it works on one (its decode overlaps), a third waits', async () => {
    pool = createJobPool({ threads: 1, maxQueue: 0, readAhead: true });
    const first = pool.run(await resizeJob('1.png'));
    const second = pool.run(await resizeJob('2.png'));
    expect(pool.pending).toBe(2);
    await expect(pool.run(await resizeJob('3.png'))).rejects.toMatchObject({ code: 'BUSY' });
    const done = await Promise.all([first, second]);
    expect(done.map((r) => r.ok && r.name)).toEqual(['1.png', '2.png']);
    expect(done.map((r) => r.ok && (r.result as { width: number }).width)).toEqual([8, 8]);
  });
});
