/**
 * The results of a tool page (resized, background removed): a list keyed by name, where a new result
 * replaces the one of the same name, the names ticked for analysis, and the object URLs behind the
 * previews. The URLs are revoked on reset and when the page goes away, unless handed to another page.
 */
import { useEffect, useRef, useState } from 'react';
import i18n from '#web/i18n/index.ts';
import type { ListedImage } from '../components/SelectableImageList.tsx';

export const NOTHING_SELECTED = 'Please select at least one image to analyze!';

export function useImageResults<T extends ListedImage>() {
  const [items, setItems] = useState<T[]>([]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const urls = useRef<string[]>([]);
  const handedOver = useRef(false);
  useEffect(
    () => () => {
      if (!handedOver.current) urls.current.forEach((u) => URL.revokeObjectURL(u));
    },
    [],
  );

  /** An object URL for a preview, revoked with the others. */
  const objectUrl = (blob: Blob): string => {
    const url = URL.createObjectURL(blob);
    urls.current.push(url);
    return url;
  };

  /** Appends the entries; each replaces an earlier one of its name. */
  const add = (entries: T[]) => {
    const names = new Set(entries.map((e) => e.name));
    setItems((list) => [...list.filter((r) => !names.has(r.name)), ...entries]);
  };

  /**
   * The ticked entries for /analysis, or null after alerting that none is ticked. With `handOver`
   * their URLs stay valid after this page goes away (the next page fetches them).
   */
  const chosen = (handOver = false): T[] | null => {
    const list = items.filter((r) => selected.has(r.name));
    if (list.length === 0) {
      alert(i18n.t(NOTHING_SELECTED));
      return null;
    }
    if (handOver) handedOver.current = true;
    return list;
  };

  const reset = () => {
    urls.current.forEach((u) => URL.revokeObjectURL(u));
    urls.current = [];
    setItems([]);
    setSelected(new Set());
  };

  return { items, selected, setSelected, objectUrl, add, chosen, reset };
}
