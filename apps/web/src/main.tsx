import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { createUserManager } from './auth/auth';
import { loadConfig } from './config';
import { savedLocale } from './i18n/i18n';
import './styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
const locale = savedLocale();
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
