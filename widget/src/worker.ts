/**
 * Local mode's Web Worker: decodes each photo with the canvas backend and runs the bruise plugin
 * with its default method: the server's bruise model through onnxruntime-web when the server offers
 * one (fetched once, lazily), else the classical method. No photo leaves the browser. Inlined into
 * the bundle as a Blob URL.
 */
import bruise, { dataUrl } from '@mango/plugin-bruise';
import { createContext, runPlugin, userMessage } from '@mango/core';
import { browserImages } from '@mango/core/browser';
import type { ModelLoader } from '@mango/core';
import type { WorkerReply, WorkerRequest } from './protocol.ts';
import { webModelLoader } from './webModels.ts';
import { BruiseResultItem } from '@mango/plugin-bruise/results';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};

const loaders = new Map<string, ModelLoader>();

scope.onmessage = async (e) => {
  const { id, name, bytes, apiBase } = e.data;
  try {
    const image = await browserImages.decode(new Uint8Array(bytes), name);
    let models = loaders.get(apiBase);
    if (!models) loaders.set(apiBase, (models = webModelLoader(apiBase)));
    const ctx = createContext(browserImages, {
      models,
      filename: name,
      progress: (fraction) => scope.postMessage({ id, type: 'progress', fraction }),
    });
    const { images, ...figures } = await runPlugin(bruise, image, { method: 'auto' }, ctx);
    // The same item as the server's: the overlay as a data URL, encoded here (canvas).
    const overlay = images.overlay;
    if (overlay?.kind !== 'picture') throw new Error('the bruise plugin returned no overlay');
    const jpeg = await browserImages.encode(overlay.image, overlay.format, { quality: overlay.quality });
    const mime = overlay.format === 'png' ? 'image/png' : 'image/jpeg';
    const item = BruiseResultItem.parse({ ...figures, overlay_img: dataUrl(jpeg, mime) });
    scope.postMessage({ id, type: 'result', item });
  } catch (err) {
    scope.postMessage({ id, type: 'error', message: userMessage(err) });
  }
};
