import { Link } from 'react-router-dom';
import './shell.css';
import { useTranslation } from 'react-i18next';

/** Header of the signed-out public pages: logo and the way in. */
export default function PublicHeader() {
  const { t } = useTranslation();
  return (
    <header className="navbar public-header">
      <Link to="/" className="logo">
        <span className="logo-mark" aria-hidden="true" />
        {t('Mango Bruise Tracker')}
      </Link>
      <nav aria-label={t('Public')}>
        <Link to="/aboutus">{t('About Us')}</Link>
        <Link to="/contactus">{t('Contact Us')}</Link>
      </nav>
      <div className="public-actions">
        <Link to="/signin" className="btn btn-secondary">
          {t('Sign In')}
        </Link>
        <Link to="/signup" className="btn btn-primary">
          {t('Sign Up')}
        </Link>
      </div>
    </header>
  );
}
