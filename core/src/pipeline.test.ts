import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createImage } from './image.ts';
import { createContext, definePlugin, type ImageBackend } from './plugin.ts';
import { decodeMaxSideFor, runPipeline } from './pipeline.ts';
import { PluginRegistry } from './registry.ts';

const noImages = {} as ImageBackend;

const halve = definePlugin({
  id: 'halve',
  title: 'Halve',
  description: 'keeps the left half',
  kind: 'transform',
  version: '1.0.0',
  options: z.object({}),
  result: z.object({ image: z.any() }),
  runtimes: ['node'],
  async run(image) {
    return { image: createImage(Math.max(1, image.width >> 1), image.height) };
  },
});

const measure = definePlugin({
  id: 'measure',
  title: 'Measure',
  description: 'reports the size of the photo a raster stands for',
  kind: 'analysis',
  version: '1.0.0',
  options: z.object({ detect: z.number().int().min(16).default(320) }),
  result: z.object({ width: z.number(), height: z.number() }),
  runtimes: ['node'],
  decodeMaxSide: (o) => o.detect,
  async run(image) {
    return image.source ?? { width: image.width, height: image.height };
  },
});

describe('pipelines', () => {
  const registry = new PluginRegistry();
  registry.register(halve);
  registry.register(measure);

  it('asks for a reduced decode only for a one-step pipeline whose plugin declares it', () => {
    expect(decodeMaxSideFor(registry, [{ plugin: 'measure' }])).toBe(320);
    expect(decodeMaxSideFor(registry, [{ plugin: 'measure', options: { detect: 500 } }])).toBe(500);
    // Invalid options: no hint; the run itself reports them.
    expect(decodeMaxSideFor(registry, [{ plugin: 'measure', options: { detect: 3 } }])).toBeUndefined();
    expect(decodeMaxSideFor(registry, [{ plugin: 'halve' }])).toBeUndefined();
    expect(decodeMaxSideFor(registry, [{ plugin: 'halve' }, { plugin: 'measure' }])).toBeUndefined();
  });

  it('feeds each transform into the next step; a reduced copy reports its source size', async () => {
    const ctx = createContext(noImages);
    expect(await runPipeline(registry, [{ plugin: 'halve' }, { plugin: 'measure' }], createImage(40, 10), ctx)).toEqual(
      {
        width: 20,
        height: 10,
      },
    );
    const reduced = { ...createImage(32, 24), source: { width: 4000, height: 3000 } };
    expect(await runPipeline(registry, [{ plugin: 'measure' }], reduced, ctx)).toEqual({ width: 4000, height: 3000 });
  });
});
