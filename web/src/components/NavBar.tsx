import { Link, useLocation } from 'react-router-dom';

export const NAV_LINKS = [
  { to: '/home', label: 'Home' },
  { to: '/resize', label: 'Resize' },
  { to: '/removebackground', label: 'Remove Background' },
  { to: '/bruise', label: 'Bruised Area Calculation' },
  { to: '/analysis', label: 'Feature Analysis' },
  { to: '/aboutusmain', label: 'About Us' },
  { to: '/contactusmain', label: 'Contact Us' },
];

/** Signed-in navigation bar (product-spec.md section 2). */
export default function NavBar() {
  const { pathname } = useLocation();
  return (
    <header className="navbar">
      <Link to="/home" className="logo">
        Mango Bruise Tracker
      </Link>
      <nav aria-label="Main">
        {NAV_LINKS.map((l) => (
          <Link
            key={l.to}
            to={l.to}
            className={pathname === l.to ? 'active' : undefined}
            aria-current={pathname === l.to ? 'page' : undefined}
          >
            {l.label}
          </Link>
        ))}
      </nav>
    </header>
  );
}
