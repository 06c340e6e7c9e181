import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BruiseRow } from '#web/lib/bruiseResults.ts';
import { fetchOverlay } from '#web/lib/runs.ts';

/** What there is to show of a row's overlay: an image source, or why there is none (yet). */
type OverlaySource = { src: string } | { missing: 'not-kept' | 'loading' | 'failed' };

/**
 * The row's overlay: the data URL of the API's answer, or (a batch job's row) the full-size overlay
 * kept with its stored run, read with the access token as an object URL that is released when the
 * image is no longer shown, so only the overlays on screen are held.
 */
function useOverlaySource(row: Pick<BruiseRow, 'overlay_img' | 'overlay_url'>): OverlaySource {
  const url = row.overlay_img ? undefined : row.overlay_url;
  const [read, setRead] = useState<{ url: string; src: string | null } | null>(null);
  useEffect(() => {
    if (!url) return;
    let objectUrl: string | null = null;
    let cancelled = false;
    fetchOverlay(url)
      .catch((e: unknown) => {
        console.error('Could not read the overlay', e);
        return null;
      })
      .then((blob) => {
        if (cancelled) return;
        objectUrl = blob ? URL.createObjectURL(blob) : null;
        setRead({ url, src: objectUrl });
      });
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url]);
  if (row.overlay_img) return { src: row.overlay_img };
  if (!url) return { missing: 'not-kept' };
  if (read?.url !== url) return { missing: 'loading' };
  return read.src ? { src: read.src } : { missing: 'failed' };
}

const MISSING_TEXT = {
  'not-kept': 'The overlay image is not kept after a reload.',
  loading: 'Loading the overlay image...',
  failed: 'The overlay image could not be loaded.',
} as const;

/**
 * A bruise result's overlay image (the results table's modal and /viewphoto/result); `corrected`: the
 * row's overlay is drawn from its corrected masks (`data-overlay="corrected"`, else "model").
 */
export default function OverlayImage({ row, corrected = false }: { row: BruiseRow; corrected?: boolean }) {
  const { t } = useTranslation();
  const source = useOverlaySource(row);
  if ('missing' in source)
    return (
      <p className="empty-state" role={source.missing === 'loading' ? 'status' : undefined}>
        {t(MISSING_TEXT[source.missing])}
      </p>
    );
  return (
    <img
      className="overlay-img"
      data-overlay={corrected ? 'corrected' : 'model'}
      src={source.src}
      alt={t('Bruise overlay of {{name}}', { name: row.filename })}
    />
  );
}
