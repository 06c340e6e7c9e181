/** Sorting and filtering of the history table, kept pure so the rules read in one place. */
export interface HistoryRecord {
  operation_type: string;
  username: string;
  organization: string;
  time_stamp: string;
  /** the stored run of the operation, when it made one (/results/:id) */
  run_id?: string | null;
}

export type SortKey = Exclude<keyof HistoryRecord, 'run_id'>;
export type SortDir = 'asc' | 'desc';

/** Dates compare as dates; every other column as lower-cased text. */
export function sortHistory(rows: HistoryRecord[], key: SortKey, dir: SortDir): HistoryRecord[] {
  const sign = dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    if (key === 'time_stamp') return sign * (new Date(a.time_stamp).getTime() - new Date(b.time_stamp).getTime());
    const x = String(a[key] ?? '').toLowerCase();
    const y = String(b[key] ?? '').toLowerCase();
    return sign * (x < y ? -1 : x > y ? 1 : 0);
  });
}

/** Case-insensitive substring match on user and organization; an empty filter lets everything through. */
export function filterHistory(rows: HistoryRecord[], user: string, organization: string): HistoryRecord[] {
  const u = user.trim().toLowerCase();
  const o = organization.trim().toLowerCase();
  return rows.filter(
    (r) =>
      (!u ||
        String(r.username ?? '')
          .toLowerCase()
          .includes(u)) &&
      (!o ||
        String(r.organization ?? '')
          .toLowerCase()
          .includes(o)),
  );
}

/** Date with hour and minute, in the viewer's locale and time zone. */
export function formatTime(iso: string, locale?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(locale, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

/** The prefix of a feature analysis's operation type, followed by its comma-joined feature ids. */
export const FEATURES_PREFIX = 'Features Analysis: ';

/**
 * How the dashboard's operation cell shows an operation type (issue 27 item 8): a feature analysis
 * is summarised as 'Feature Analysis (13 features)', its feature ids kept for the cell's tooltip;
 * any other type is its own name. `label` and `count` are for `t(label, { count })`.
 */
export function operationSummary(operationType: string): { label: string; count?: number; featureIds?: string[] } {
  if (!operationType.startsWith(FEATURES_PREFIX)) return { label: operationType };
  const featureIds = operationType
    .slice(FEATURES_PREFIX.length)
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const label = featureIds.length === 1 ? 'Feature Analysis (1 feature)' : 'Feature Analysis ({{count}} features)';
  return { label, count: featureIds.length, featureIds };
}
