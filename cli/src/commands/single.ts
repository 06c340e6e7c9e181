/** Single-image commands: crop and kmeans run in this process on one file. */
import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createContext, runPlugin } from '@mango/core';
import { decodeImage, encodeImage, nodeImages } from '@mango/core/node';
import { registry } from '@mango/plugins';
import { kmeansClassesFile, recolor, type KMeansResult } from '@mango/plugin-kmeans';
import { addSchemaOptions, readSchemaOptions } from '../schemaOptions.ts';
import { parseOrExit, UsageError } from '../util.ts';
import { addMaxMegapixels, maxPixelsOf } from '../limits.ts';

export function cropCommand(program: Command) {
  const crop = registry.get('crop');
  const cmd = program
    .command('crop')
    .description('crop a rectangle (after an optional rotation about the centre) and write a PNG')
    .argument('<input>', 'image file')
    .requiredOption('--out <file>', 'output PNG');
  addMaxMegapixels(cmd);
  addSchemaOptions(cmd, crop.options);
  cmd.action(async (input: string, o: Record<string, unknown>) => {
    const options = parseOrExit(crop.options, readSchemaOptions(crop.options, o), { options: true });
    const image = await decodeImage(await readFile(input), input, maxPixelsOf(o));
    const result = (await runPlugin(crop, image, options, createContext(nodeImages))) as {
      image: Parameters<typeof encodeImage>[0];
      width: number;
      height: number;
    };
    await writeFile(String(o.out), await encodeImage(result.image, 'png'));
    console.error(`cropped ${input} to ${result.width}x${result.height}: ${o.out}`);
  });
}

export function kmeansCommand(program: Command) {
  const cmd = program
    .command('kmeans')
    .description('K-Means colour classes seeded from sample rectangles (the /k-means page, in the terminal)')
    .argument('<image>', 'image file')
    .requiredOption(
      '--classes <file>',
      'classes JSON: {"classes": [{"name", "color": [r,g,b], "regions": [{x,y,width,height}]}]}',
    )
    .option('--out <file>', 'result JSON [{"name","color","percent"}] (default: stdout)')
    .option('--recolored <file>', 'write the image recoloured by class as PNG');
  addMaxMegapixels(cmd).action(
    async (input: string, o: { classes: string; out?: string; recolored?: string; maxMegapixels?: string }) => {
      const maxPixels = maxPixelsOf(o);
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(o.classes, 'utf8'));
      } catch (e) {
        throw new UsageError(`${o.classes}: not a readable JSON file (${(e as Error).message})`);
      }
      const classes = parseOrExit(kmeansClassesFile, raw);
      const image = await decodeImage(await readFile(input), input, maxPixels);
      const result = (await runPlugin(
        registry.get('kmeans'),
        image,
        { classes: classes.classes, labels: Boolean(o.recolored) },
        createContext(nodeImages),
      )) as KMeansResult;
      const text = JSON.stringify(result.classes, null, 2) + '\n';
      if (o.out) await writeFile(o.out, text);
      else process.stdout.write(text);
      if (o.recolored && result.labels) {
        const colors = classes.classes.map((c) => c.color);
        await writeFile(o.recolored, await encodeImage(recolor(image, result.labels, colors), 'png'));
      }
    },
  );
}
