/**
 * One chart of plots.ts drawn by Vega in the browser (the chart library is loaded when the first
 * chart is shown: it is not in the app's main bundle). The figure has the chart's title, its
 * description for screen readers, and PNG / SVG downloads of exactly what is shown. A chart wider
 * than its card (a phone, a narrow column of the compare page) is drawn again fitted to the card's
 * width (`fitWidth`, axes and legend included): it never scrolls sideways.
 */
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fitWidth, type Chart as ChartSpec } from '@mango/core/plots';
import { downloadBlob } from '#web/lib/download.ts';

type View = Awaited<ReturnType<(typeof import('@mango/core/plots-render'))['chartView']>>;

/** A file name from a chart's title: letters and digits (any script), the rest '-'. */
const fileName = (title: string, ext: string) =>
  `${title.replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'chart'}.${ext}`;

export default function Chart({ chart, testId }: { chart: ChartSpec; testId?: string }) {
  const { t } = useTranslation();
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLDivElement>(null);
  /** the card's inner width, whole pixels (0 until measured) */
  const [room, setRoom] = useState(0);
  const view = useRef<View | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');

  useEffect(() => {
    const el = canvas.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setRoom(Math.floor(el.clientWidth)));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (room === 0) return;
    let cancelled = false;
    let made: View | null = null;
    setState('loading');
    import('@mango/core/plots-render')
      .then(async ({ chartView }) => {
        if (cancelled || !box.current) return;
        made = chartView(chart.spec, { container: box.current, renderer: 'svg' });
        await made.runAsync();
        // wider than the card: drawn again to the card's width
        const drawn = box.current.querySelector('svg')?.getBoundingClientRect().width ?? 0;
        if (!cancelled && drawn > room) {
          made.finalize();
          made = chartView(fitWidth(chart, room).spec, { container: box.current, renderer: 'svg' });
          await made.runAsync();
        }
        if (cancelled) return;
        view.current = made;
        setState('ready');
      })
      .catch((e: unknown) => {
        console.error('chart not drawn:', e);
        if (!cancelled) setState('failed');
      });
    return () => {
      cancelled = true;
      made?.finalize();
      view.current = null;
    };
  }, [chart, room]);

  const savePng = async () => {
    if (!view.current) return;
    const url = await view.current.toImageURL('png', 2);
    downloadBlob(await (await fetch(url)).blob(), fileName(chart.title, 'png'));
  };
  const saveSvg = async () => {
    if (!view.current) return;
    const { accessibleSvg } = await import('@mango/core/plots-render');
    const svg = accessibleSvg(await view.current.toSVG(), chart, chart.id);
    downloadBlob(new Blob([svg], { type: 'image/svg+xml' }), fileName(chart.title, 'svg'));
  };

  return (
    <figure className="plot" data-testid={testId ?? `plot-${chart.id}`} data-state={state}>
      <div
        ref={canvas}
        className="plot-canvas"
        role="img"
        aria-label={chart.title}
        aria-describedby={`${id}-desc`}
        aria-busy={state === 'loading'}
      >
        {/* Vega draws here (and labels this element with the chart's description) */}
        <div ref={box} />
      </div>
      <p id={`${id}-desc`} className="visually-hidden" data-testid="plot-description">
        {chart.description}
      </p>
      {state === 'failed' && <p className="form-error">{t('The chart could not be drawn.')}</p>}
      <figcaption className="plot-actions">
        <button
          type="button"
          className="btn btn-secondary btn-small"
          disabled={state !== 'ready'}
          onClick={() => void savePng()}
        >
          {t('Download PNG')}
        </button>
        <button
          type="button"
          className="btn btn-secondary btn-small"
          disabled={state !== 'ready'}
          onClick={() => void saveSvg()}
        >
          {t('Download SVG')}
        </button>
      </figcaption>
    </figure>
  );
}
