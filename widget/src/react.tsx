/**
 * React wrapper: mounts <mango-bruise-widget> and forwards its two events. All behaviour lives in the
 * custom element; this file only passes attributes and listeners.
 */
import { useEffect, useRef, type CSSProperties } from 'react';
import { defineMangoBruiseWidget, type MangoErrorDetail, type WidgetMode } from './element.ts';
import { type BruiseResultItem } from '@mango/plugin-bruise/results';

export interface MangoBruiseWidgetProps {
  apiBase?: string;
  apiKey?: string;
  mode?: WidgetMode;
  locale?: string;
  className?: string;
  style?: CSSProperties;
  onResult?: (items: BruiseResultItem[]) => void;
  onError?: (detail: MangoErrorDetail) => void;
}

export function MangoBruiseWidget({
  apiBase,
  apiKey,
  mode,
  locale,
  className,
  style,
  onResult,
  onError,
}: MangoBruiseWidgetProps) {
  const ref = useRef<HTMLElement>(null);
  const handlers = useRef({ onResult, onError });
  useEffect(() => {
    handlers.current = { onResult, onError };
  });

  useEffect(() => {
    defineMangoBruiseWidget();
    const node = ref.current;
    if (!node) return;
    const result = (e: Event) => handlers.current.onResult?.((e as CustomEvent<BruiseResultItem[]>).detail);
    const error = (e: Event) => handlers.current.onError?.((e as CustomEvent<MangoErrorDetail>).detail);
    node.addEventListener('mango-result', result);
    node.addEventListener('mango-error', error);
    return () => {
      node.removeEventListener('mango-result', result);
      node.removeEventListener('mango-error', error);
    };
  }, []);

  return (
    <mango-bruise-widget
      ref={ref}
      api-base={apiBase}
      api-key={apiKey}
      mode={mode}
      locale={locale}
      class={className}
      style={style}
    />
  );
}

declare module 'react' {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace JSX {
    interface IntrinsicElements {
      'mango-bruise-widget': React.DetailedHTMLProps<React.HTMLAttributes<HTMLElement>, HTMLElement> & {
        'api-base'?: string;
        'api-key'?: string;
        mode?: WidgetMode;
        locale?: string;
        class?: string;
      };
    }
  }
}

export default MangoBruiseWidget;
