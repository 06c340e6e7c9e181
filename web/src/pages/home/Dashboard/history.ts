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
