import { definePlugin, throwIfAborted } from '@mango/core';
import { KMEANS_ITERATIONS, kmeansOptions, kmeansResult } from './schema.ts';
import { clusterColours, initialCentres, percentages } from './kmeans.ts';
import { kmeansRuns } from './runs.ts';

export {
  KMEANS_ITERATIONS,
  MAX_CLASSES,
  rgbColor,
  kmeansRegion,
  kmeansClass,
  kmeansClassesFile,
  kmeansOptions,
  kmeansClassArea,
  kmeansResultFile,
  kmeansResult,
} from './schema.ts';
export type {
  RgbColor,
  KMeansRegion,
  KMeansClass,
  KMeansClassesFile,
  KMeansOptions,
  KMeansClassArea,
  KMeansResult,
} from './schema.ts';
export { recolor, regionBounds, initialCentres, clusterColours, percentages } from './kmeans.ts';
export type { Clustering, ClusterOptions, ClusterStrategy } from './kmeans.ts';

export default definePlugin({
  id: 'kmeans',
  title: 'K-Means Clustering',
  description:
    'Splits an image into user-defined colour classes: centres seeded from sample rectangles, 10 rounds of k-means in RGB, area percent per class.',
  kind: 'analysis',
  version: '1.0.0',
  options: kmeansOptions,
  result: kmeansResult,
  runtimes: ['node', 'browser'],
  runs: kmeansRuns,
  async run(image, options, ctx) {
    ctx.progress(0, 'clustering');
    const initial = initialCentres(image, options.classes);
    throwIfAborted(ctx.signal);
    const { labels, counts } = clusterColours(image, initial, {
      labels: options.labels,
      afterRound: (round) => {
        throwIfAborted(ctx.signal);
        ctx.progress(round / KMEANS_ITERATIONS, `round ${round} of ${KMEANS_ITERATIONS}`);
      },
    });
    const percent = percentages(counts, image.width * image.height);
    return {
      classes: options.classes.map((c, k) => ({ name: c.name, color: c.color, percent: percent[k] })),
      ...(options.labels ? { labels } : {}),
    };
  },
});
