/**
 * Local mode's Web Worker: decodes each photo with the canvas backend and runs the bruise plugin
 * (classical method), so nothing leaves the browser. Inlined into the bundle as a Blob URL.
 */
import bruise from '@mango/plugin-bruise';
import { createContext, runPlugin, userMessage } from '@mango/core';
import { browserImages } from '@mango/core/browser';
import type { WorkerReply, WorkerRequest } from './protocol.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};

scope.onmessage = async (e) => {
  const { id, name, bytes } = e.data;
  try {
    const image = await browserImages.decode(new Uint8Array(bytes), name);
    const ctx = createContext(browserImages, {
      progress: (fraction) => scope.postMessage({ id, type: 'progress', fraction }),
    });
    const item = await runPlugin(bruise, image, { method: 'classical', filename: name }, ctx);
    scope.postMessage({ id, type: 'result', item });
  } catch (err) {
    scope.postMessage({ id, type: 'error', message: userMessage(err) });
  }
};
