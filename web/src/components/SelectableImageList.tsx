import type { ReactNode } from 'react';
import JSZip from 'jszip';
import { downloadBlob } from '../lib/download.ts';
import { useTranslation } from 'react-i18next';

export interface ListedImage {
  name: string;
  url: string;
  blob: Blob;
}

export interface SelectableImageListProps<T extends ListedImage> {
  title: string;
  items: T[];
  selected: Set<string>;
  onSelectedChange: (selected: Set<string>) => void;
  /** CSS class prefix of the page (e.g. 'resized' gives resized-head, resized-list, resized-item ...) */
  classPrefix: string;
  /** alt text of each preview, before the file name */
  altPrefix: string;
  /** name of the zip Download All makes */
  zipName: string;
  onSendToAnalysis: () => void;
  /** extra cells after the name (e.g. the resized dimensions) */
  details?: (item: T) => ReactNode;
}

/**
 * The processed-images list shared by the tool pages: select one or all, download one, download all as a
 * zip, send the selection to analysis.
 */
export default function SelectableImageList<T extends ListedImage>(props: SelectableImageListProps<T>) {
  const { t } = useTranslation();
  const { items, selected, onSelectedChange, classPrefix: c } = props;
  const allSelected = items.length > 0 && items.every((i) => selected.has(i.name));
  const toggle = (name: string) => {
    const next = new Set(selected);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    onSelectedChange(next);
  };
  const downloadAll = async () => {
    if (items.length === 0) return;
    const zip = new JSZip();
    for (const i of items) zip.file(i.name, i.blob);
    downloadBlob(await zip.generateAsync({ type: 'blob' }), props.zipName);
  };
  if (items.length === 0) return null;
  return (
    <div className="card" style={{ marginTop: 20 }}>
      <div className={`${c}-head`}>
        <h2>{t(props.title)}</h2>
        <label>
          <input
            type="checkbox"
            checked={allSelected}
            onChange={() => onSelectedChange(allSelected ? new Set() : new Set(items.map((i) => i.name)))}
          />{' '}
          {t('Select all')}
        </label>
      </div>
      <ul className={`${c}-list`} aria-label={t(props.title)}>
        {items.map((i) => (
          <li key={i.name} className={selected.has(i.name) ? `${c}-item ${c}-on` : `${c}-item`}>
            <label className={`${c}-select`}>
              <input
                type="checkbox"
                checked={selected.has(i.name)}
                onChange={() => toggle(i.name)}
                aria-label={t('Select {{name}}', { name: i.name })}
              />
              <img src={i.url} alt={`${t(props.altPrefix)}: ${i.name}`} />
            </label>
            <span className={`${c}-name file-name`} title={i.name}>
              {i.name}
            </span>
            {props.details?.(i)}
            <button
              type="button"
              className="btn btn-secondary btn-small"
              aria-label={t('Download {{name}}', { name: i.name })}
              onClick={() => downloadBlob(i.blob, i.name)}
            >
              {t('Download')}
            </button>
          </li>
        ))}
      </ul>
      <div className="tool-actions">
        <button type="button" className="btn btn-secondary" onClick={() => void downloadAll()}>
          {t('Download All')}
        </button>
        <button type="button" className="btn btn-primary" onClick={props.onSendToAnalysis}>
          {t('Send to Analysis')}
        </button>
      </div>
    </div>
  );
}
