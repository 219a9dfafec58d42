import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createUserManager } from './auth/auth';
import { loadConfig } from './config';
import type { Locale } from './i18n/messages';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
const locale: Locale = localStorage.getItem('mw.locale') === 'ru' ? 'ru' : 'en';
document.documentElement.lang = locale;

loadConfig().then(
  (config) =>
    root.render(
      <StrictMode>
        <App config={config} manager={createUserManager(config)} locale={locale} />
      </StrictMode>,
    ),
  (e: unknown) => root.render(<p role="alert">{String(e)}</p>),
);
