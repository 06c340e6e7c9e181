import PublicHeader from '#web/components/PublicHeader.tsx';
import Footer from '#web/components/Footer.tsx';
import { ContactCards, GetStarted, SocialCards } from '#web/components/PublicContent.tsx';
import { useTranslation } from 'react-i18next';

/** Public contact page for visitors who have not signed in. */
export default function ContactUs() {
  const { t } = useTranslation();
  return (
    <div className="layout">
      <PublicHeader />
      <main className="page public-page">
        <section className="hero">
          <h1>{t('Contact Us')}</h1>
          <p>{t('Questions about the tool or your results? Reach the lab team by email or phone.')}</p>
        </section>
        <ContactCards main={false} />
        <SocialCards />
        <GetStarted to="/signin" />
      </main>
      <Footer />
    </div>
  );
}
