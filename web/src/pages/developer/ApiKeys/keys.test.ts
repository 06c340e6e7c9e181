import { describe, expect, it } from 'vitest';
import { errorOf, parseOrigins } from './keys.ts';

describe('API keys page helpers', () => {
  it('reads origins one per line or comma-separated, without trailing slashes', () => {
    expect(parseOrigins(' https://a.example.com/ \n\nhttp://127.0.0.1:5174, https://b.example.com')).toEqual([
      'https://a.example.com',
      'http://127.0.0.1:5174',
      'https://b.example.com',
    ]);
    expect(parseOrigins('   ')).toEqual([]);
  });

  it('turns {error, details} into one line', () => {
    expect(errorOf({ error: 'Invalid request', details: [{ message: 'bad origin' }] }, 'x')).toBe(
      'Invalid request: bad origin',
    );
    expect(errorOf({ error: 'At most 20 active API keys' }, 'x')).toBe('At most 20 active API keys');
    expect(errorOf(null, 'fallback')).toBe('fallback');
  });
});
