import { Link } from 'react-router-dom';

/** A card saying there is nothing to show, with a link to where something can be made. */
export default function EmptyState({ message, to, action }: { message: string; to: string; action: string }) {
  return (
    <div className="card empty-state">
      <p>{message}</p>
      <Link className="btn btn-primary" to={to}>
        {action}
      </Link>
    </div>
  );
}
