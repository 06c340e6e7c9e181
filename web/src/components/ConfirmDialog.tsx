import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  cancelLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  /** extra buttons, e.g. the crop dialog's three choices */
  children?: React.ReactNode;
}

/** A modal dialog with focus on the confirm button, Escape to cancel. */
export default function ConfirmDialog(props: ConfirmDialogProps) {
  const { t } = useTranslation();
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!props.open) return;
    confirmRef.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && props.onCancel();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [props.open, props]);
  if (!props.open) return null;
  return (
    <div className="modal-backdrop" role="presentation">
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="confirm-title">
        <h2 id="confirm-title">{t(props.title)}</h2>
        <p>{t(props.message)}</p>
        <div className="modal-actions">
          {props.children ?? (
            <>
              <button type="button" className="btn btn-secondary" onClick={props.onCancel}>
                {t(props.cancelLabel ?? 'Cancel')}
              </button>
              <button type="button" className="btn btn-primary" ref={confirmRef} onClick={props.onConfirm}>
                {t(props.confirmLabel ?? 'Confirm')}
              </button>
            </>
          )}
        </div>
      </div>
    </div>
  );
}
