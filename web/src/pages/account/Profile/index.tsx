import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { useProfile } from '#web/account/profile.ts';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

const ROWS = [
  ['name', 'Name'],
  ['email', 'Email'],
  ['phone', 'Phone'],
  ['country', 'Country'],
  ['organization', 'Organization'],
] as const;

/** Read-only profile with the ways to edit it or change the password. */
export default function Profile() {
  const { t } = useTranslation();
  const state = useProfile();
  return (
    <Layout>
      {state.status === 'loading' && (
        <p className="page-loading" role="status">
          {t('Loading profile...')}
        </p>
      )}
      {state.status === 'error' && (
        <p className="alert" role="alert">
          {t(state.error)}
        </p>
      )}
      {state.status === 'loaded' && (
        <section className="card narrow-card profile-card" aria-labelledby="profile-title">
          <div className="profile-head">
            <span className="profile-avatar" aria-hidden="true">
              {(state.profile.name || state.profile.username || '?').charAt(0).toUpperCase()}
            </span>
            <div>
              <h1 id="profile-title">{t('Profile')}</h1>
              {state.profile.username && <p className="muted">@{state.profile.username}</p>}
            </div>
          </div>
          <dl className="profile-fields">
            {ROWS.map(([key, label]) => (
              <div key={key} className="profile-row">
                <dt>{t(label)}</dt>
                <dd data-field={key}>{state.profile[key] || '—'}</dd>
              </div>
            ))}
          </dl>
          <div className="form-actions">
            <Link to="/profile/edit" className="btn btn-primary">
              {t('Edit Profile')}
            </Link>
            <Link to="/profile/changepassword" className="btn btn-secondary">
              {t('Change Password')}
            </Link>
            <Link to="/apikeys" className="btn btn-secondary">
              {t('Partner API Keys')}
            </Link>
          </div>
        </section>
      )}
    </Layout>
  );
}
