import { describe, expect, it } from 'vitest';
import { printable } from './util.ts';

describe('printable: text for the terminal', () => {
  it('writes control characters, bidirectional controls and backslashes as escapes', () => {
    expect(printable('bad\nname\u001b[31m.jpg')).toBe('bad\\nname\\x1b[31m.jpg');
    expect(printable('a\tb\rc\u007f\u009b')).toBe('a\\tb\\rc\\x7f\\x9b');
    // a right-to-left override would show "gpj.exe" reversed as "exe.jpg"
    expect(printable('photo\u202egpj.exe')).toBe('photo\\u202egpj.exe');
    expect(printable('x\u2028y\u2066z')).toBe('x\\u2028y\\u2066z');
    // a name that holds a backslash and an n reads apart from one that holds a newline
    expect(printable('bad\\nname.jpg')).toBe('bad\\\\nname.jpg');
    expect(printable('bad\\nname.jpg')).not.toBe(printable('bad\nname.jpg'));
  });

  it('leaves other text, Unicode included, as it is', () => {
    for (const t of ['ünïcødé_芒果 มะม่วง.jpg', '/data/lot 3/a b.png', 'เกรด 1: 2.5 %']) expect(printable(t)).toBe(t);
  });
});
