import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'react-router-dom';
import './shell.css';
import { useTranslation } from 'react-i18next';

export const NAV_LINKS = [
  { to: '/home', label: 'Home' },
  { to: '/resize', label: 'Resize' },
  { to: '/removebackground', label: 'Remove Background' },
  { to: '/bruise', label: 'Bruised Area Calculation' },
  { to: '/analysis', label: 'Feature Analysis' },
  { to: '/results', label: 'Results' },
  { to: '/aboutusmain', label: 'About Us' },
  { to: '/contactusmain', label: 'Contact Us' },
];

export const PROFILE_MENU = [
  { to: '/profile', label: 'View Profile' },
  { to: '/logout', label: 'Sign Out' },
];

/**
 * Signed-in navigation bar (product-spec.md section 2): the logo to /home, the tool links with the
 * current path highlighted, and the profile avatar whose click opens and closes its menu. On the
 * K-Means page nothing is highlighted and the menu is empty.
 */
export default function NavBar() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const kmeans = pathname === '/k-means';
  const [open, setOpen] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);
  const profileRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    setOpen(false);
    setMenuOpen(false);
  }, [pathname]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (profileRef.current && !profileRef.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  const items = kmeans ? [] : PROFILE_MENU;
  return (
    <header className="navbar">
      <Link to="/home" className="logo" aria-label={t('Mango Bruise Tracker home')}>
        <span className="logo-mark" aria-hidden="true" />
        {t('Mango Bruise Tracker')}
      </Link>
      <button
        type="button"
        className="nav-toggle"
        aria-expanded={menuOpen}
        aria-controls="main-nav"
        aria-label={t('Menu')}
        title={t('Menu')}
        onClick={() => setMenuOpen((v) => !v)}
      >
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
          <path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
        </svg>
      </button>
      <nav id="main-nav" aria-label={t('Main')} className={menuOpen ? 'nav-open' : undefined}>
        {NAV_LINKS.map((l) => {
          const current = !kmeans && pathname === l.to;
          return (
            <Link
              key={l.to}
              to={l.to}
              className={current ? 'active' : undefined}
              aria-current={current ? 'page' : undefined}
            >
              {t(l.label)}
            </Link>
          );
        })}
      </nav>
      <div className="profile" ref={profileRef}>
        <button
          type="button"
          className="avatar"
          aria-label={t('Profile menu')}
          aria-haspopup="menu"
          aria-expanded={open}
          onClick={() => setOpen((v) => !v)}
        >
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <circle cx="12" cy="8" r="4" fill="currentColor" />
            <path d="M4 21c0-4.4 3.6-7 8-7s8 2.6 8 7" fill="currentColor" />
          </svg>
        </button>
        {open && (
          <ul className="profile-menu" role="menu" aria-label={t('Profile')}>
            {items.map((item) => (
              <li key={item.to} role="none">
                <Link role="menuitem" to={item.to} onClick={() => setOpen(false)}>
                  {t(item.label)}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </header>
  );
}
