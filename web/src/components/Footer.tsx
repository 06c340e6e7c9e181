import { Link } from 'react-router-dom';
import { SITE } from '../site.ts';
import './shell.css';
import { useTranslation } from 'react-i18next';

/** Site footer: the lab's address in Thailand, links, and support hours. */
export default function Footer() {
  const { t } = useTranslation();
  return (
    <footer className="footer">
      <div className="footer-grid">
        <section aria-labelledby="footer-about">
          <h2 id="footer-about">{SITE.name}</h2>
          <p>
            {t('Bruise detection and measurement on mango images for quality control, from a university research lab.')}
          </p>
        </section>
        <section aria-labelledby="footer-address">
          <h2 id="footer-address">{t('Visit us')}</h2>
          <address>
            {SITE.addressLines.map((line) => (
              <span key={line}>
                {t(line)}
                <br />
              </span>
            ))}
          </address>
        </section>
        <section aria-labelledby="footer-links">
          <h2 id="footer-links">{t('Links')}</h2>
          <ul>
            <li>
              <Link to="/home">{t('Home')}</Link>
            </li>
            <li>
              <Link to="/aboutusmain">{t('About Us')}</Link>
            </li>
            <li>
              <Link to="/contactusmain">{t('Contact Us')}</Link>
            </li>
            <li>
              <Link to="/api-docs">{t('API Docs')}</Link>
            </li>
          </ul>
        </section>
        <section aria-labelledby="footer-support">
          <h2 id="footer-support">{t('Support')}</h2>
          <p>
            <a href={`mailto:${SITE.email}`}>{SITE.email}</a>
            <br />
            {SITE.phone}
            <br />
            <span className="support-hours">{t(SITE.supportHours)}</span>
          </p>
        </section>
      </div>
      <p className="footer-bottom">
        © {new Date().getFullYear()} {SITE.name} · {t(SITE.lab)}
      </p>
    </footer>
  );
}
