import type { ReactNode } from 'react';
import NavBar from './NavBar.tsx';
import Footer from './Footer.tsx';
import './shell.css';

/** The signed-in frame: navigation bar, the page, the footer. */
export default function Layout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className="layout">
      <NavBar />
      <main className={className ? `page ${className}` : 'page'}>{children}</main>
      <Footer />
    </div>
  );
}
