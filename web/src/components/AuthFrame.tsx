import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import './shell.css';
import '../account/account.css';
import { useTranslation } from 'react-i18next';

/** Sign in and sign up: the logo (to /aboutus) above one card titled `title`. */
export default function AuthFrame({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="auth-page">
      <main className="auth-main">
        <Link to="/aboutus" className="logo">
          <span className="logo-mark" aria-hidden="true" />
          {t('Mango Bruise Tracker')}
        </Link>
        <section className="auth-card card" aria-labelledby={id}>
          <h1 id={id}>{title}</h1>
          {children}
        </section>
      </main>
    </div>
  );
}
