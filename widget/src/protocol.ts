import { type BruiseResultItem } from '@mango/plugin-bruise/results';
/** Messages between the widget and its local-mode worker. */

export interface WorkerRequest {
  id: number;
  name: string;
  bytes: ArrayBuffer;
  /** the product server: local mode fetches onnxruntime-web and the bruise model from it */
  apiBase: string;
}

export type WorkerReply =
  | { id: number; type: 'progress'; fraction: number }
  | { id: number; type: 'result'; item: BruiseResultItem }
  | { id: number; type: 'error'; message: string };
