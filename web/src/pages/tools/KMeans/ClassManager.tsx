import { useState } from 'react';
import FilePickerButton from '#web/components/FilePickerButton.tsx';
import { rgbCss } from './colors.ts';
import type { KMeansState } from './useKMeans.ts';
import { useTranslation } from 'react-i18next';

type Props = Pick<
  KMeansState,
  'classes' | 'selected' | 'setSelected' | 'samples' | 'addClass' | 'exportClasses' | 'importClasses'
>;

/** The class manager: add a class (name and colour), select one to draw with, export and import the classes file. */
export default function ClassManager({
  classes,
  selected,
  setSelected,
  samples,
  addClass,
  exportClasses,
  importClasses,
}: Props) {
  const { t } = useTranslation();
  const [newName, setNewName] = useState('');
  const [newColor, setNewColor] = useState('#ff0000');
  return (
    <aside className="card kmeans-classes" aria-label={t('Class manager')}>
      <h2>{t('Classes')}</h2>
      <form
        className="kmeans-add"
        onSubmit={(e) => {
          e.preventDefault();
          if (addClass(newName, newColor)) setNewName('');
        }}
      >
        <input
          type="text"
          placeholder={t('Class name')}
          aria-label={t('Class name')}
          value={newName}
          onChange={(e) => setNewName(e.target.value)}
        />
        <input
          type="color"
          aria-label={t('Class colour')}
          value={newColor}
          onChange={(e) => setNewColor(e.target.value)}
        />
        <button type="submit" className="btn btn-secondary">
          {t('Add Class')}
        </button>
      </form>
      {classes.length === 0 ? (
        <p className="tool-status">{t('No classes yet.')}</p>
      ) : (
        <ul className="kmeans-class-list">
          {classes.map((c, k) => (
            <li key={`${c.name}-${k}`}>
              <button
                type="button"
                className={k === selected ? 'kmeans-class kmeans-class-on' : 'kmeans-class'}
                aria-pressed={k === selected}
                onClick={() => setSelected(k)}
              >
                <span className="kmeans-swatch" style={{ background: rgbCss(c.color) }} />
                <span className="kmeans-class-name">{c.name}</span>
                <span className="kmeans-samples">{t('{{count}} samples', { count: samples[k] ?? 0 })}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="kmeans-file-actions">
        <button type="button" className="btn btn-secondary btn-small" onClick={exportClasses}>
          {t('Export Classes')}
        </button>
        <FilePickerButton
          className="btn btn-secondary btn-small"
          accept=".json,application/json"
          testId="classes-input"
          onFile={(f) => void importClasses(f)}
        >
          {t('Import Classes')}
        </FilePickerButton>
      </div>
    </aside>
  );
}
