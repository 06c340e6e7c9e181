/**
 * Multipart upload with progress through XMLHttpRequest (fetch cannot report upload progress).
 * Same rules as apiFetch: the bearer access token, and one refresh then retry on 401.
 */
import { getAccessToken, getRefreshToken } from '../auth/tokens.ts';
import { refreshTokens } from '../api/client.ts';

export interface UploadResponse {
  ok: boolean;
  status: number;
  body: Blob;
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
      resolve({ ok: xhr.status >= 200 && xhr.status < 300, status: xhr.status, body });
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

/** The `detail` of an /api-py error body, when the body is JSON holding one. */
export async function readDetail(body: Blob | Response): Promise<string | null> {
  try {
    const data = JSON.parse(await body.text()) as unknown;
    if (data && typeof data === 'object' && 'detail' in data) {
      const detail = (data as { detail: unknown }).detail;
      if (typeof detail === 'string' && detail) return detail;
      if (detail != null) return JSON.stringify(detail);
    }
  } catch {
    // not JSON: no detail
  }
  return null;
}
