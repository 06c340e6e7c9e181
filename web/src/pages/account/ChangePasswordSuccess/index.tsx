import { Link } from 'react-router-dom';
import RecoveryFrame from '#web/components/RecoveryFrame.tsx';
import { useTranslation } from 'react-i18next';

/** End of recovery; Sign-in goes through /logout so no old session survives. */
export default function ChangePasswordSuccess() {
  const { t } = useTranslation();
  return (
    <RecoveryFrame title={t('Password Updated')}>
      <p className="auth-lead">{t('Your password has been updated. Sign in with your new password.')}</p>
      <Link to="/logout" className="btn btn-primary btn-block">
        {t('Sign-in')}
      </Link>
    </RecoveryFrame>
  );
}
