/**
 * Sections shared by the public About and Contact pages (signed-in and signed-out variants).
 * No accuracy, speed or customer figures are stated unless they are in measured.json.
 */
import { Link } from 'react-router-dom';
import measured from '../measured.json';
import { measuredFigures, SITE } from '../site.ts';
import '../account/account.css';
import { useTranslation } from 'react-i18next';

export const VALUE_PROPS = [
  {
    title: 'Precision Detection',
    text: 'Each photo is segmented pixel by pixel into fruit, bruise and background, and the bruised share of the fruit is reported as a percentage with an overlay you can check by eye.',
  },
  {
    title: 'Fast Analysis',
    text: 'Upload a batch of photos at once and get one table for all of them, or score whole folders from the command line.',
  },
  {
    title: 'Data-Driven Insights',
    text: 'Colour, texture and shape features per image, a history of every operation, and CSV exports for your own statistics.',
  },
];

export const TECHNOLOGY = [
  { name: 'TypeScript', text: 'One typed code base for the server, the web app, the CLI and the widget.' },
  { name: 'React', text: 'The web interface and the embeddable bruise widget.' },
  { name: 'Node.js', text: 'The API server and the batch command-line runner.' },
  {
    name: 'Checked feature definitions',
    text: 'Colour, texture (GLCM, LBP, Gabor) and shape features are checked against scikit-image on reference images.',
  },
  {
    name: 'ONNX Runtime',
    text: 'Runs the trained bruise model (a small U-Net) in the server and the command line, and in the visitor’s browser for the widget’s local mode.',
  },
];

export function ValueProps() {
  const { t } = useTranslation();
  return (
    <section className="public-section" aria-labelledby="values-title">
      <h2 id="values-title">{t('What it does')}</h2>
      <ul className="card-grid">
        {VALUE_PROPS.map((v) => (
          <li key={v.title} className="card value-card">
            <h3>{t(v.title)}</h3>
            <p>{t(v.text)}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Figures from measured.json only; without any, the section is left out. */
export function Stats() {
  const { t } = useTranslation();
  const figures = measuredFigures(measured);
  if (figures.length === 0) return null;
  return (
    <section className="public-section" aria-labelledby="stats-title">
      <h2 id="stats-title">{t('Measured results')}</h2>
      <ul className="stats-grid">
        {figures.map((f) => (
          <li key={f.label} className="card stat">
            <strong className="stat-value">{t(f.value)}</strong>
            <span className="stat-label">{t(f.label)}</span>
            {f.note && <small className="stat-note">{t(f.note)}</small>}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Technology() {
  const { t } = useTranslation();
  return (
    <section className="public-section" aria-labelledby="tech-title">
      <h2 id="tech-title">{t('Technology')}</h2>
      <ul className="tech-list">
        {TECHNOLOGY.map((tech) => (
          <li key={tech.name} className="card">
            <h3>{t(tech.name)}</h3>
            <p>{t(tech.text)}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function GetStarted({ to }: { to: string }) {
  const { t } = useTranslation();
  return (
    <section className="cta card">
      <h2>{t('Ready to check your fruit?')}</h2>
      <Link to={to} className="btn btn-primary">
        {t("Let's get started")}
      </Link>
    </section>
  );
}

export function ContactCards({ main }: { main: boolean }) {
  const { t } = useTranslation();
  return (
    <ul className="card-grid contact-cards">
      <li className="card contact-card">
        <h3>{t(main ? 'Email Support' : 'Email')}</h3>
        <p>
          <a href={`mailto:${SITE.email}`}>{SITE.email}</a>
        </p>
      </li>
      <li className="card contact-card">
        <h3>{t(main ? 'Phone Support' : 'Phone')}</h3>
        <p>
          <a href={`tel:${SITE.phone.replace(/\s/g, '')}`}>{SITE.phone}</a>
        </p>
        <p className="muted">{t(SITE.supportHours)}</p>
      </li>
      <li className="card contact-card">
        <h3>{t('Lab Address')}</h3>
        <address>
          {SITE.addressLines.map((line) => (
            <span key={line}>
              {t(line)}
              <br />
            </span>
          ))}
        </address>
      </li>
    </ul>
  );
}

export function SocialCards() {
  const { t } = useTranslation();
  return (
    <section className="public-section" aria-labelledby="social-title">
      <h2 id="social-title">{t('Follow us')}</h2>
      <ul className="card-grid social-cards">
        <li className="card social-card">
          <h3>{t('Facebook')}</h3>
          <a href={SITE.facebook} target="_blank" rel="noopener noreferrer" className="btn btn-secondary">
            {t('Visit our Facebook page')}
          </a>
        </li>
        <li className="card social-card social-soon">
          <h3>{t('Instagram')}</h3>
          <span className="badge">{t('Coming soon')}</span>
        </li>
        <li className="card social-card social-soon">
          <h3>{t('LinkedIn')}</h3>
          <span className="badge">{t('Coming soon')}</span>
        </li>
      </ul>
    </section>
  );
}
