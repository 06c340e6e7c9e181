import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import { ContactCards, SocialCards } from '#web/components/PublicContent.tsx';
import { useTranslation } from 'react-i18next';

/** Contact page inside the signed-in frame. */
export default function ContactUsMain() {
  const { t } = useTranslation();
  return (
    <Layout className="public-page">
      <section className="hero">
        <h1>{t('Contact Us')}</h1>
        <p>{t('Questions about your results, the API or a partnership? The lab team answers by email and phone.')}</p>
      </section>
      <ContactCards main />
      <SocialCards />
      <section className="cta card">
        <h2>{t('Try the tools')}</h2>
        <div className="hero-actions">
          <Link to="/bruise" className="btn btn-primary">
            {t('Bruised Area Calculation')}
          </Link>
          <Link to="/analysis" className="btn btn-secondary">
            {t('Feature Analysis')}
          </Link>
        </div>
      </section>
    </Layout>
  );
}
