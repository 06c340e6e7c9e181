import { Link } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';

/** End of recovery; Sign-in goes through /logout so no old session survives. */
export default function ChangePasswordSuccess() {
  return (
    <RecoveryFrame title="Password Updated">
      <p className="auth-lead">Your password has been updated. Sign in with your new password.</p>
      <Link to="/logout" className="btn btn-primary btn-block">
        Sign-in
      </Link>
    </RecoveryFrame>
  );
}
