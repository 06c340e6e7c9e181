import { z } from 'zod';
import type { RasterImage } from './image.ts';
import type { PluginContext } from './plugin.ts';
import { runPlugin } from './plugin.ts';
import type { PluginRegistry } from './registry.ts';
import { MangoError } from './errors.ts';

/** A pipeline is data: the same steps can come from an HTTP body, a CLI flag or the widget. */
export const PipelineStep = z.object({ plugin: z.string(), options: z.record(z.string(), z.unknown()).optional() });
export type PipelineStep = z.infer<typeof PipelineStep>;
export const Pipeline = z.array(PipelineStep).min(1);

/**
 * The long side a front end may decode the photo to for these steps (see Plugin.decodeMaxSide):
 * only a one-step pipeline whose plugin declares it; undefined means decode in full.
 */
export function decodeMaxSideFor(registry: PluginRegistry, steps: PipelineStep[]): number | undefined {
  if (steps.length !== 1) return undefined;
  const plugin = registry.get(steps[0].plugin);
  if (!plugin.decodeMaxSide) return undefined;
  // Invalid options are reported by the run itself.
  const options = plugin.options.safeParse(steps[0].options ?? {});
  return options.success ? plugin.decodeMaxSide(options.data) : undefined;
}

/**
 * Runs the steps in order. Each transform step's result.image feeds the next step; the result of
 * the last step is returned, with the extra images asked for in ctx.want (earlier steps are asked
 * for none).
 */
export async function runPipeline(
  registry: PluginRegistry,
  steps: PipelineStep[],
  image: RasterImage,
  ctx: PluginContext,
): Promise<unknown> {
  let current = image;
  let last: unknown = undefined;
  for (const [i, step] of steps.entries()) {
    const plugin = registry.get(step.plugin);
    const final = i === steps.length - 1;
    const result = await runPlugin(plugin, current, step.options ?? {}, final ? ctx : { ...ctx, want: [] });
    last = result;
    if (!final) {
      if (plugin.kind !== 'transform') {
        throw new MangoError(
          'INVALID_INPUT',
          `step ${i + 1} (${plugin.id}) is an analysis and can only be the last step`,
        );
      }
      current = (result as { image: RasterImage }).image;
    }
  }
  return last;
}
