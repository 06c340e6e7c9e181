import type { ReactNode } from 'react';
import NavBar from './NavBar.tsx';
import Footer from './Footer.tsx';

/** The signed-in frame: navigation bar, the page, the footer. */
export default function Layout({ children }: { children: ReactNode }) {
  return (
    <div className="layout">
      <NavBar />
      <main className="page">{children}</main>
      <Footer />
    </div>
  );
}
