import { useRef, useState } from 'react';
import { DROPZONE_UPLOAD, isAcceptedType, refusalMessage } from '@mango/core';
import { useTranslation } from 'react-i18next';
import i18n from '#web/i18n/index.ts';

/** Size in KB with 2 decimals, as the file lists show it. */
export function formatKB(bytes: number): string {
  return `${(bytes / 1024).toFixed(2)} KB`;
}

/**
 * Keeps the valid files of a selection (DROPZONE_UPLOAD: .jpg, .jpeg, .png by name); when none
 * passes, alerts the spec's message. Valid ones are appended to the current list.
 */
export function acceptFiles(current: File[], incoming: File[]): File[] {
  const valid = incoming.filter((f) => isAcceptedType(DROPZONE_UPLOAD, f));
  if (valid.length === 0 && incoming.length > 0) {
    alert(i18n.t(refusalMessage(DROPZONE_UPLOAD, 'type') ?? ''));
    return current;
  }
  return [...current, ...valid];
}

export interface DropzoneProps {
  files: File[];
  onChange: (files: File[]) => void;
  multiple?: boolean;
  label?: string;
}

/** Click or drag and drop; lists the selected files with their size and a remove button each. */
export default function Dropzone({ files, onChange, multiple = true, label }: DropzoneProps) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const add = (list: FileList | null) => {
    if (!list) return;
    const incoming = Array.from(list);
    onChange(acceptFiles(multiple ? files : [], multiple ? incoming : incoming.slice(0, 1)));
  };
  return (
    <div className="dropzone-wrap">
      <div
        className={`dropzone${over ? ' dropzone-over' : ''}`}
        role="button"
        tabIndex={0}
        aria-label={t(label ?? 'Select images: click or drag and drop')}
        data-testid="dropzone"
        onClick={() => input.current?.click()}
        onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && input.current?.click()}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          add(e.dataTransfer.files);
        }}
      >
        <p>{t(label ?? 'Drag and drop images here, or click to select files')}</p>
        <p className="dropzone-hint">{t('JPG, JPEG or PNG')}</p>
        <input
          ref={input}
          type="file"
          accept={DROPZONE_UPLOAD.accept}
          multiple={multiple}
          hidden
          data-testid="file-input"
          onChange={(e) => {
            add(e.target.files);
            e.target.value = '';
          }}
        />
      </div>
      {files.length > 0 && (
        <ul className="file-list" aria-label={t('Selected files')}>
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`}>
              <span className="file-name" title={f.name}>
                {f.name}
              </span>
              <span className="file-size">{formatKB(f.size)}</span>
              <button
                type="button"
                className="btn btn-secondary btn-small"
                aria-label={t('Remove {{name}}', { name: f.name })}
                onClick={() => onChange(files.filter((_, j) => j !== i))}
              >
                {t('Remove')}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
