import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import AppRoutes from './routes.tsx';
import LanguageSwitch from './components/LanguageSwitch.tsx';
import './i18n/index.ts';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter>
      <AppRoutes />
      <LanguageSwitch />
    </BrowserRouter>
  </StrictMode>,
);
