/** The /apikeys page's data: the key as GET /api-node/api-keys lists it, form parsing, error text. */
export interface ApiKey {
  id: number;
  name: string;
  prefix: string;
  organization: string;
  allowed_origins: string[];
  rate_limit_per_minute: number;
  /** browser: only from the allowed origins' pages; server: only without an Origin */
  kind: 'browser' | 'server';
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export const API_KEYS_ENDPOINT = '/api-node/api-keys';

/** One origin per line (or comma-separated); blank lines and trailing slashes dropped. */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** {error, details?} of an /api-node answer as one line, or the fallback. */
export function errorOf(data: unknown, fallback: string): string {
  const e = data as { error?: unknown; details?: unknown } | null;
  if (e && typeof e.error === 'string') {
    const details = Array.isArray(e.details)
      ? e.details
          .map((d: { message?: string } | string) => (typeof d === 'string' ? d : d?.message))
          .filter(Boolean)
          .join('; ')
      : '';
    return details ? `${e.error}: ${details}` : e.error;
  }
  return fallback;
}
