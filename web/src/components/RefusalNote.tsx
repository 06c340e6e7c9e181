/**
 * The server's reason for refusing an upload and, when it says so, how long to wait (Retry-After):
 * one inline line under a page's own error text (issue 23 item 1). Nothing when the refusal says
 * neither (a bare 500, a network failure).
 */
import { useTranslation } from 'react-i18next';
import { tellsWhy, type Refusal } from '#web/lib/refusal.ts';

export interface RefusalNoteProps {
  refusal: Refusal | null;
  /** the photo the request sent, named when the reason does not name it */
  name?: string;
}

export default function RefusalNote({ refusal, name }: RefusalNoteProps) {
  const { t } = useTranslation();
  if (!tellsWhy(refusal)) return null;
  const { status, reason, retryAfter } = refusal;
  const named = reason && name && !reason.includes(name) ? `${name}: ${reason}` : reason;
  const lines = [
    named ? t('Refused by the server ({{status}}): {{reason}}', { status, reason: t(named) }) : null,
    retryAfter !== null ? t('Try again in {{seconds}} s.', { seconds: retryAfter }) : null,
  ];
  return (
    <p className="refusal-note" data-testid="refusal" data-status={status}>
      {lines.filter(Boolean).join(' ')}
    </p>
  );
}
