import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { GetStarted, Stats, Technology, ValueProps } from '#web/components/PublicContent.tsx';
import { useTranslation } from 'react-i18next';

/** About page inside the signed-in frame. */
export default function AboutUsMain() {
  const { t } = useTranslation();
  return (
    <Layout className="public-page">
      <section className="hero">
        <h1>{t('About Mango Bruise Tracker')}</h1>
        <p>
          {t(
            'A research tool from a university lab that finds and measures bruised areas on mango photos and reports the bruise-to-fruit ratio for quality control.',
          )}
        </p>
        <div className="hero-actions">
          <Link to="/bruise" className="btn btn-primary">
            {t('Try Our Demo')}
          </Link>
          <Link to="/contactusmain" className="btn btn-secondary">
            {t('Contact Our Team')}
          </Link>
        </div>
      </section>
      <ValueProps />
      <Stats />
      <Technology />
      <GetStarted to="/analysis" />
    </Layout>
  );
}
