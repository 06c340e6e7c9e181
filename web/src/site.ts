/**
 * Contact details shown in the footer and on the contact pages, kept in one place so the lab can
 * replace them without touching the pages.
 */
export const SITE = {
  name: 'Mango Bruise Tracker',
  lab: 'Postharvest Imaging Laboratory',
  addressLines: [
    'Postharvest Imaging Laboratory, Faculty of Engineering',
    'University campus, Bangkok 10330',
    'Thailand',
  ],
  email: 'support@mangobruisetracker.org',
  phone: '+66 2 000 0000',
  supportHours: 'Mon-Fri 9am-5pm (GMT+7)',
  facebook: 'https://www.facebook.com/',
};

/** Figures the product has measured, filled in by the maintainers in measured.json; none are invented here. */
export interface MeasuredFigure {
  value: string;
  label: string;
  /** how and on what it was measured, shown under the figure */
  note?: string;
}

export function measuredFigures(data: unknown): MeasuredFigure[] {
  const stats = (data as { stats?: unknown } | null)?.stats;
  if (!Array.isArray(stats)) return [];
  return stats.filter(
    (s): s is MeasuredFigure =>
      typeof s === 'object' &&
      s !== null &&
      typeof (s as MeasuredFigure).value === 'string' &&
      typeof (s as MeasuredFigure).label === 'string',
  );
}
