import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createImage } from './image.ts';
import { createContext, definePlugin, PluginImages, wantsImage, type ImageBackend } from './plugin.ts';
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

const asked: (readonly string[] | undefined)[] = [];

/** A transform that also returns a mask of its input (an extra image, when asked for). */
const outline = definePlugin({
  id: 'outline',
  title: 'Outline',
  description: 'keeps the image; names it and returns its mask',
  kind: 'transform',
  version: '1.0.0',
  options: z.object({}),
  result: z.object({ image: z.any(), name: z.string(), images: PluginImages }),
  runtimes: ['node'],
  images: { mask: 'the whole image, set' },
  async run(image, _options, ctx) {
    asked.push(ctx.want);
    const mask = { width: image.width, height: image.height, data: new Uint8Array(image.width * image.height).fill(1) };
    return {
      image,
      name: ctx.filename,
      images: wantsImage(ctx, 'mask') ? { mask: { kind: 'mask' as const, mask } } : {},
    };
  },
});

describe('pipelines', () => {
  const registry = new PluginRegistry();
  registry.register(halve);
  registry.register(measure);
  registry.register(outline);

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

  it("gives every step the file name and asks only the last step for the caller's extra images", async () => {
    asked.length = 0;
    const ctx = createContext(noImages, { filename: 'a.jpg', want: ['mask'] });
    const out = (await runPipeline(
      registry,
      [{ plugin: 'outline' }, { plugin: 'halve' }, { plugin: 'outline' }],
      createImage(8, 6),
      ctx,
    )) as {
      name: string;
      images: PluginImages;
    };
    expect(out.name).toBe('a.jpg');
    expect(asked).toEqual([[], ['mask']]);
    const mask = out.images.mask;
    expect(mask?.kind).toBe('mask');
    if (mask?.kind === 'mask') expect([mask.mask.width, mask.mask.height, mask.mask.data.length]).toEqual([4, 6, 24]);
    // Nothing asked for: the plugin's default (no mask); the file name defaults to 'image'.
    const plain = (await runPipeline(
      registry,
      [{ plugin: 'outline' }],
      createImage(2, 2),
      createContext(noImages),
    )) as {
      name: string;
      images: PluginImages;
    };
    expect(plain).toMatchObject({ name: 'image', images: {} });
  });
});
