/**
 * Local mode's Web Worker: decodes each photo with the canvas backend and runs the bruise plugin
 * with its default method: the server's bruise model through onnxruntime-web when the server offers
 * one (fetched once, lazily), else the classical method. No photo leaves the browser. Inlined into
 * the bundle as a Blob URL.
 */
import bruise from '@mango/plugin-bruise';
import { createContext, runPlugin, userMessage } from '@mango/core';
import { browserImages } from '@mango/core/browser';
import type { ModelLoader } from '@mango/core';
import type { WorkerReply, WorkerRequest } from './protocol.ts';
import { webModelLoader } from './webModels.ts';

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
      progress: (fraction) => scope.postMessage({ id, type: 'progress', fraction }),
    });
    const item = await runPlugin(bruise, image, { method: 'auto', filename: name }, ctx);
    scope.postMessage({ id, type: 'result', item });
  } catch (err) {
    scope.postMessage({ id, type: 'error', message: userMessage(err) });
  }
};
