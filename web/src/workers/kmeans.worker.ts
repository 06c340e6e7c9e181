/**
 * Runs the kmeans plugin off the main thread so the /k-means page stays responsive; answers with the
 * class areas and the recoloured image (its pixel buffer transferred, not copied).
 */
import { createContext, runPlugin, userMessage, type RasterImage } from '@mango/core';
import { browserImages } from '@mango/core/browser';
import kmeans, { recolor, type KMeansClass, type KMeansClassArea } from '@mango/plugin-kmeans';

export interface KMeansRequest {
  id: number;
  image: RasterImage;
  classes: KMeansClass[];
}

export type KMeansResponse =
  | { id: number; ok: true; classes: KMeansClassArea[]; recoloured: RasterImage; ms: number }
  | { id: number; ok: false; error: string };

/** The worker's global scope (the project's TypeScript lib is DOM, not WebWorker). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<KMeansRequest>) => void) | null;
  postMessage(message: KMeansResponse, transfer?: Transferable[]): void;
};

scope.onmessage = async (event: MessageEvent<KMeansRequest>) => {
  const { id, image, classes } = event.data;
  try {
    const t0 = performance.now();
    const out = await runPlugin(kmeans, image, { classes, labels: true }, createContext(browserImages));
    const recoloured = recolor(
      image,
      out.labels!,
      classes.map((c) => c.color),
    );
    const reply: KMeansResponse = { id, ok: true, classes: out.classes, recoloured, ms: performance.now() - t0 };
    scope.postMessage(reply, [recoloured.data.buffer as ArrayBuffer]);
  } catch (e) {
    const reply: KMeansResponse = { id, ok: false, error: userMessage(e) };
    scope.postMessage(reply);
  }
};
