import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import AppRoutes from './routes.tsx';
import LanguageSwitch from './components/LanguageSwitch.tsx';
import './i18n/index.ts';
// Thai webfont shipped with the app (Sarabun, SIL OFL, from npm; no CDN): the weights the styles use.
import '@fontsource/sarabun/400.css';
import '@fontsource/sarabun/600.css';
import '@fontsource/sarabun/700.css';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter>
      <AppRoutes />
      <LanguageSwitch />
    </BrowserRouter>
  </StrictMode>,
);
