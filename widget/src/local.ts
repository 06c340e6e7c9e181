/** Local mode: one worker per widget, photos measured one after another, nothing uploaded. */
import BruiseWorker from './worker.ts?worker&inline';
import type { WorkerReply, WorkerRequest } from './protocol.ts';
import { WidgetError } from './server.ts';
import { type BruiseResultItem } from '@mango/plugin-bruise/results';

export class LocalScorer {
  private worker: Worker | null = null;
  private nextId = 1;

  constructor(private readonly apiBase: string) {}

  private get instance(): Worker {
    this.worker ??= new BruiseWorker();
    return this.worker;
  }

  async score(
    files: File[],
    onProgress?: (done: number, total: number, fraction: number) => void,
    signal?: AbortSignal,
  ): Promise<BruiseResultItem[]> {
    const items: BruiseResultItem[] = [];
    for (const [i, file] of files.entries()) {
      if (signal?.aborted) throw new DOMException('aborted', 'AbortError');
      items.push(await this.scoreOne(file, (f) => onProgress?.(i, files.length, f)));
    }
    onProgress?.(files.length, files.length, 1);
    return items;
  }

  private async scoreOne(file: File, onFraction: (fraction: number) => void): Promise<BruiseResultItem> {
    const bytes = await file.arrayBuffer();
    const id = this.nextId++;
    const worker = this.instance;
    return new Promise((resolve, reject) => {
      const onMessage = (e: MessageEvent<WorkerReply>) => {
        const reply = e.data;
        if (reply.id !== id) return;
        if (reply.type === 'progress') {
          onFraction(reply.fraction);
          return;
        }
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        if (reply.type === 'result') resolve(reply.item);
        else
          reject(
            new WidgetError(reply.message.startsWith(file.name) ? reply.message : `${file.name}: ${reply.message}`),
          );
      };
      const onError = (e: ErrorEvent) => {
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        this.dispose();
        reject(new WidgetError(e.message || 'the local worker failed'));
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      const request: WorkerRequest = { id, name: file.name, bytes, apiBase: this.apiBase };
      worker.postMessage(request, [bytes]);
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}
