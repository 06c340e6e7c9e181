/**
 * The one HTTP client of the web app: same-origin calls, the bearer access token from local storage,
 * and one refresh of an expired access token before giving up.
 */
import { clearTokens, getAccessToken, getRefreshToken, setTokens } from '../auth/tokens.ts';

let refreshing: Promise<boolean> | null = null;

/** Exchanges the refresh token for a new pair once; concurrent callers share the same attempt. */
export function refreshTokens(): Promise<boolean> {
  if (!refreshing) {
    refreshing = (async () => {
      const refreshToken = getRefreshToken();
      if (!refreshToken) return false;
      try {
        const res = await fetch('/api-node/refresh', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ refreshToken }),
        });
        if (!res.ok) {
          clearTokens();
          return false;
        }
        setTokens((await res.json()) as { accessToken: string; refreshToken: string });
        return true;
      } catch {
        return false;
      } finally {
        setTimeout(() => (refreshing = null), 0);
      }
    })();
  }
  return refreshing;
}

/** fetch with the bearer token; on 401 refreshes once and retries. */
export async function apiFetch(input: string, init: RequestInit = {}): Promise<Response> {
  const withAuth = (): RequestInit => {
    const headers = new Headers(init.headers);
    const token = getAccessToken();
    if (token) headers.set('Authorization', `Bearer ${token}`);
    return { ...init, headers };
  };
  const res = await fetch(input, withAuth());
  if (res.status !== 401 || !getRefreshToken()) return res;
  if (!(await refreshTokens())) return res;
  return fetch(input, withAuth());
}

export async function apiJson<T>(
  input: string,
  init: RequestInit = {},
): Promise<{ ok: boolean; status: number; data: T }> {
  const headers = new Headers(init.headers);
  if (init.body && typeof init.body === 'string') headers.set('Content-Type', 'application/json');
  const res = await apiFetch(input, { ...init, headers });
  const data: unknown = await res.json().catch(() => null);
  return { ok: res.ok, status: res.status, data: data as T };
}

/**
 * POST /api-node/user/action; the response is not read and failures are only logged (spec section 7).
 * `runId`: the stored run the operation made (its answer's run_id), kept on the same history row.
 */
export async function logAction(operationType: string, runId?: string | null): Promise<void> {
  try {
    const res = await apiFetch('/api-node/user/action', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(runId ? { operationType, run_id: runId } : { operationType }),
    });
    if (!res.ok) console.error('Failed to log action', res.status);
  } catch (e) {
    console.error('Failed to log action', e);
  }
}
