import { describe, expect, it } from 'vitest';
import { hashPassword, verifyAgainstDummy, verifyPassword } from './passwords.ts';

describe('password hashing', () => {
  it('stores scrypt parameters and a random salt, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).toMatch(/^scrypt\$15\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('never matches a malformed stored value', async () => {
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$15$8$1$abc$')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$40$8$1$abc$def')).toBe(false);
  });

  it('spends comparable time on unknown accounts', async () => {
    const stored = await hashPassword('secret-password');
    await verifyAgainstDummy('warm-up');
    const time = async (f: () => Promise<unknown>) => {
      const t0 = performance.now();
      await f();
      return performance.now() - t0;
    };
    const real = await time(() => verifyPassword('wrong-password', stored));
    const dummy = await time(() => verifyAgainstDummy('wrong-password'));
    expect(dummy).toBeGreaterThan(real / 4);
    expect(dummy).toBeLessThan(real * 4);
  });
});
