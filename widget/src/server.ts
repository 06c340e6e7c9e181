import { type BruiseResultItem } from '@mango/plugin-bruise/results';
/**
 * Server mode: the photos go to the bruise endpoint of the product's API with the partner key.
 * XMLHttpRequest rather than fetch because only it reports upload progress.
 */

export const BRUISE_PATH = '/api-py/python/bruise_detection/DeepLearning';

export class WidgetError extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
    this.name = 'WidgetError';
  }
}

export interface ServerScoreOptions {
  apiBase: string;
  apiKey: string;
  files: File[];
  signal?: AbortSignal;
  onUploadProgress?: (fraction: number) => void;
  messages: { networkError: string; serverError: (status: number) => string };
}

/** The {detail} (api-py) or {error} (api-node) message of an error answer, if any. */
export function errorMessage(body: string): string | null {
  try {
    const json = JSON.parse(body) as { detail?: unknown; error?: unknown };
    if (typeof json.detail === 'string') return json.detail;
    if (typeof json.error === 'string') return json.error;
  } catch {
    // not JSON
  }
  return null;
}

export function bruiseUrl(apiBase: string): string {
  return apiBase.replace(/\/+$/, '') + BRUISE_PATH;
}

export function scoreOnServer(o: ServerScoreOptions): Promise<BruiseResultItem[]> {
  const form = new FormData();
  for (const f of o.files) form.append('images', f, f.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', bruiseUrl(o.apiBase));
    xhr.setRequestHeader('Authorization', `Bearer ${o.apiKey}`);
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) o.onUploadProgress?.(e.loaded / e.total);
    };
    // the upload is over: from here the server is measuring
    xhr.upload.onload = () => o.onUploadProgress?.(1);
    xhr.onerror = () => reject(new WidgetError(o.messages.networkError));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(new WidgetError(errorMessage(xhr.responseText) ?? o.messages.serverError(xhr.status), xhr.status));
        return;
      }
      try {
        const items = JSON.parse(xhr.responseText) as BruiseResultItem[];
        if (!Array.isArray(items)) throw new Error('not a list');
        resolve(items);
      } catch {
        reject(new WidgetError(o.messages.serverError(xhr.status), xhr.status));
      }
    };
    o.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
