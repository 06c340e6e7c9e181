import { Link } from 'react-router-dom';
import Layout from '#web/components/Layout.tsx';
import '#web/account/account.css';
import { useTranslation } from 'react-i18next';

const TOOLS = [
  { to: '/bruise', title: 'Bruised Area Calculation', text: 'Measure the bruised share of each mango in your photos.' },
  {
    to: '/analysis',
    title: 'Feature Analysis',
    text: 'Colour, texture and shape features per image, exported as CSV.',
  },
  { to: '/resize', title: 'Resize', text: 'Resize a batch of photos, keeping the aspect ratio if you like.' },
  { to: '/removebackground', title: 'Remove Background', text: 'Cut the fruit out of its background.' },
  { to: '/crop', title: 'Crop', text: 'Crop, zoom and rotate a single photo.' },
  { to: '/k-means', title: 'K-Means Clustering', text: 'Mark example regions and cluster colours in your browser.' },
];

/** Signed-in landing page: the hero and a card per tool. */
export default function Home() {
  const { t } = useTranslation();
  return (
    <Layout className="home">
      <section className="hero">
        <h1>{t('Welcome to Mango Bruise Tracker!')}</h1>
        <p>{t('Detect and measure bruised areas on mango images and keep a record of every operation.')}</p>
        <div className="hero-actions">
          <Link to="/bruise" className="btn btn-primary">
            {t('Start a bruise calculation')}
          </Link>
          <Link to="/dashboard" className="btn btn-secondary">
            {t('View your history')}
          </Link>
        </div>
      </section>
      <section aria-labelledby="tools-title">
        <h2 id="tools-title">{t('Tools')}</h2>
        <ul className="card-grid">
          {TOOLS.map((tool) => (
            <li key={tool.to} className="card tool-card">
              <h3>
                <Link to={tool.to}>{t(tool.title)}</Link>
              </h3>
              <p>{t(tool.text)}</p>
            </li>
          ))}
        </ul>
      </section>
    </Layout>
  );
}
