import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

/** Shown after a signed-in password change. */
export default function NewPassword() {
  const { t } = useTranslation();
  return (
    <Layout>
      <section className="card narrow-card success-card">
        <h1>{t('Your password has been updated')}</h1>
        <p>{t('Use your new password the next time you sign in.')}</p>
        <Link to="/signin" className="btn btn-primary">
          {t('Sign-in')}
        </Link>
      </section>
    </Layout>
  );
}
