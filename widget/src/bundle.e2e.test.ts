/**
 * The built bundle (web/e2e/global-setup.ts runs `vite build` here first): one self-contained ES
 * module and one classic script, the worker inlined, the ES module under 250 KB gzipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

const dist = resolve(import.meta.dirname, '../dist');
const ES = resolve(dist, 'mango-bruise-widget.js');
const IIFE = resolve(dist, 'mango-bruise-widget.iife.js');
export const MAX_GZIPPED_BYTES = 250 * 1024;

const gzipped = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

describe('widget bundle', () => {
  it('is built as exactly one ES module and one classic script', () => {
    expect(existsSync(ES), 'run `npm run build -w @mango/widget`').toBe(true);
    expect(existsSync(IIFE)).toBe(true);
  });

  it('keeps the ES module under 250 KB gzipped', () => {
    const size = gzipped(ES);
    console.info(
      `widget bundle gzipped: ES ${(size / 1024).toFixed(1)} KB, classic ${(gzipped(IIFE) / 1024).toFixed(1)} KB`,
    );
    expect(size).toBeLessThan(MAX_GZIPPED_BYTES);
  });

  it('loads nothing else: no imports, no chunk or worker files, the worker inlined as a Blob URL', () => {
    for (const path of [ES, IIFE]) {
      const code = readFileSync(path, 'utf8');
      expect(code).not.toMatch(/^\s*import[\s{*'"]/m);
      // The one dynamic import: local mode's onnxruntime-web, from the api-base's /widget/ort/ (lazy).
      const imports = code.match(/\bimport\s*\(/g) ?? [];
      expect(imports).toHaveLength(1);
      expect(code).toMatch(
        /import\s*\((?:\\n|\s|\/\*[^*]*\*\/)*`\$\{\w+\}\/widget\/ort\/ort\.wasm\.bundle\.min\.mjs`\)/,
      );
      expect(code).not.toMatch(/new URL\([^)]*import\.meta\.url/);
      expect(code).toContain('createObjectURL');
      // the bruise plugin is in the inlined worker, not fetched
      expect(code).toMatch(/bruise/);
    }
    expect(readFileSync(IIFE, 'utf8')).not.toMatch(/^export\s/m);
  });
});
