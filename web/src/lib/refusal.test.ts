import { describe, expect, it } from 'vitest';
import { readRefusal, reasonOf, refusalIn, RefusedError, retryAfterSeconds, tellsWhy } from './refusal.ts';

const answer = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers });

describe('refusals', () => {
  it("reads /api-py's detail and /api-node's error", async () => {
    expect(await readRefusal(answer(413, '{"detail":"a.jpg: file is larger than the limit of 1 MB"}'))).toEqual({
      status: 413,
      reason: 'a.jpg: file is larger than the limit of 1 MB',
      retryAfter: null,
    });
    const queued = answer(429, '{"error":"Too many photos queued","details":{"queued":0,"adding":11,"max":5}}', {
      'Retry-After': '6',
    });
    expect(await readRefusal(queued)).toEqual({ status: 429, reason: 'Too many photos queued', retryAfter: 6 });
  });

  it('has no reason for a body without one, and keeps a structured detail as JSON', () => {
    expect(reasonOf('<html>Bad gateway</html>')).toBeNull();
    expect(reasonOf('')).toBeNull();
    expect(reasonOf('{"detail":""}')).toBeNull();
    expect(reasonOf('"just a string"')).toBeNull();
    expect(reasonOf('{"detail":[{"loc":"images","msg":"required"}]}')).toBe('[{"loc":"images","msg":"required"}]');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-27T05:00:00Z');
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 05:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds('Fri, 27 Nov 2026 04:59:00 GMT', now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('-5', now)).toBeNull();
    expect(retryAfterSeconds(null, now)).toBeNull();
  });

  it('tells why only with a reason or a time to wait; an error carries its refusal', () => {
    expect(tellsWhy({ status: 500, reason: null, retryAfter: null })).toBe(false);
    expect(tellsWhy({ status: 503, reason: null, retryAfter: 3 })).toBe(true);
    const refused = new RefusedError({ status: 413, reason: null, retryAfter: null }, 'the job was refused (413)');
    expect(refused.message).toBe('the job was refused (413)');
    expect(refusalIn(refused)?.status).toBe(413);
    expect(refusalIn(new Error('x'))).toBeNull();
  });
});
