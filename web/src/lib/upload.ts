/**
 * Multipart upload with progress through XMLHttpRequest (fetch cannot report upload progress).
 * Same rules as apiFetch: the bearer access token, and one refresh then retry on 401.
 */
import { getAccessToken, getRefreshToken } from '../auth/tokens.ts';
import { refreshTokens } from '../api/client.ts';
import { refusalOf, type Refusal } from './refusal.ts';

export interface UploadResponse {
  ok: boolean;
  status: number;
  /** the answer's headers (Retry-After of a refusal) */
  headers: Headers;
  body: Blob;
}

/** The headers of an XMLHttpRequest answer. */
function headersOf(xhr: XMLHttpRequest): Headers {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

function sendOnce(url: string, form: FormData, onProgress?: (fraction: number) => void): Promise<UploadResponse> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.responseType = 'blob';
    const token = getAccessToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress?.(e.loaded / e.total);
    };
    xhr.onload = () => {
      const body = xhr.response instanceof Blob ? xhr.response : new Blob([]);
      resolve({ ok: xhr.status >= 200 && xhr.status < 300, status: xhr.status, headers: headersOf(xhr), body });
    };
    xhr.onerror = () => reject(new Error(`Network error while uploading to ${url}`));
    xhr.onabort = () => reject(new Error(`Upload to ${url} was aborted`));
    xhr.send(form);
  });
}

/** POSTs the form; `onProgress` receives the uploaded fraction (0 to 1) of the request body. */
export async function uploadWithProgress(
  url: string,
  form: FormData,
  onProgress?: (fraction: number) => void,
): Promise<UploadResponse> {
  const res = await sendOnce(url, form, onProgress);
  if (res.status !== 401 || !getRefreshToken()) return res;
  if (!(await refreshTokens())) return res;
  return sendOnce(url, form, onProgress);
}

/** Why the server refused an upload: its reason and Retry-After (lib/refusal.ts). */
export async function readUploadRefusal(res: UploadResponse): Promise<Refusal> {
  return refusalOf(res, await res.body.text().catch(() => ''));
}
