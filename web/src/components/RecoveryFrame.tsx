import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import Aurora from './Aurora.tsx';
import './shell.css';
import '../account/account.css';
import { useTranslation } from 'react-i18next';

/** The recovery screens: aurora background, the logo (to /) and one centred card. */
export default function RecoveryFrame({ title, children }: { title: string; children: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="recovery">
      <Aurora colorStops={['#f4a300', '#3a8d2f', '#ffd166']} blend={0.5} amplitude={1} speed={0.5} />
      <main className="recovery-main">
        <Link to="/" className="logo recovery-logo">
          <span className="logo-mark" aria-hidden="true" />
          {t('Mango Bruise Tracker')}
        </Link>
        <section className="auth-card card" aria-labelledby="recovery-title">
          <h1 id="recovery-title">{title}</h1>
          {children}
        </section>
      </main>
    </div>
  );
}
