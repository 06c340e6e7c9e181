import { Link } from 'react-router-dom';
import { useTranslation } from 'react-i18next';

/** A card saying there is nothing to show, with a link to where something can be made. */
export default function EmptyState({ message, to, action }: { message: string; to: string; action: string }) {
  const { t } = useTranslation();
  return (
    <div className="card empty-state">
      <p>{t(message)}</p>
      <Link className="btn btn-primary" to={to}>
        {t(action)}
      </Link>
    </div>
  );
}
