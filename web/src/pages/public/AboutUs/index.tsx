import { Link } from 'react-router-dom';
import PublicHeader from '#web/components/PublicHeader.tsx';
import Footer from '#web/components/Footer.tsx';
import { GetStarted, Stats, Technology, ValueProps } from '#web/components/PublicContent.tsx';

/** Public about page for visitors who have not signed in. */
export default function AboutUs() {
  return (
    <div className="layout">
      <PublicHeader />
      <main className="page public-page">
        <section className="hero">
          <h1>Mango Bruise Tracker</h1>
          <p>
            Retailers, producers and quality controllers use it to find bruises on mango photos and measure how much of
            each fruit they cover.
          </p>
          <div className="hero-actions">
            <Link to="/signin" className="btn btn-primary">
              Sign-In
            </Link>
            <Link to="/signup" className="btn btn-primary">
              Sign-Up
            </Link>
            <Link to="/contactus" className="btn btn-secondary">
              Contact Our Team
            </Link>
          </div>
        </section>
        <ValueProps />
        <Stats />
        <Technology />
        <GetStarted to="/signin" />
      </main>
      <Footer />
    </div>
  );
}
