import { Link } from 'react-router-dom';
import PublicHeader from '#web/components/PublicHeader.tsx';
import Footer from '#web/components/Footer.tsx';
import { GetStarted, Stats, Technology, ValueProps } from '#web/components/PublicContent.tsx';
import { useTranslation } from 'react-i18next';

/** Public about page for visitors who have not signed in. */
export default function AboutUs() {
  const { t } = useTranslation();
  return (
    <div className="layout">
      <PublicHeader />
      <main className="page public-page">
        <section className="hero">
          <h1>{t('Mango Bruise Tracker')}</h1>
          <p>
            {t(
              'Retailers, producers and quality controllers use it to find bruises on mango photos and measure how much of each fruit they cover.',
            )}
          </p>
          <div className="hero-actions">
            <Link to="/signin" className="btn btn-primary">
              {t('Sign-In')}
            </Link>
            <Link to="/signup" className="btn btn-primary">
              {t('Sign-Up')}
            </Link>
            <Link to="/contactus" className="btn btn-secondary">
              {t('Contact Our Team')}
            </Link>
          </div>
        </section>
        <ValueProps />
        <Stats />
        <Technology />
        <GetStarted to="/signin" />
      </main>
      <Footer />
    </div>
  );
}
