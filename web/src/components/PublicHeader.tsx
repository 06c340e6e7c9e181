import { Link } from 'react-router-dom';
import './shell.css';

/** Header of the signed-out public pages: logo and the way in. */
export default function PublicHeader() {
  return (
    <header className="navbar public-header">
      <Link to="/" className="logo">
        <span className="logo-mark" aria-hidden="true" />
        Mango Bruise Tracker
      </Link>
      <nav aria-label="Public">
        <Link to="/aboutus">About Us</Link>
        <Link to="/contactus">Contact Us</Link>
      </nav>
      <div className="public-actions">
        <Link to="/signin" className="btn btn-secondary">
          Sign In
        </Link>
        <Link to="/signup" className="btn btn-primary">
          Sign Up
        </Link>
      </div>
    </header>
  );
}
