import { ApiError } from '../api/clients';
import { useT } from '../i18n/i18n';

export function Loading() {
  const t = useT();
  return <p role="status">{t('app.loading')}</p>;
}

export function NotFound() {
  const t = useT();
  return (
    <section>
      <h1>{t('app.notFound')}</h1>
      <p>{t('app.notFoundText')}</p>
    </section>
  );
}

/** An error answer: 404 is the not-found page (somebody else's order looks exactly like a missing one). */
export function ErrorView({ error }: { error: unknown }) {
  const t = useT();
  if (error instanceof ApiError && error.status === 404) return <NotFound />;
  const message =
    error instanceof ApiError ? `${error.code ?? error.status}: ${error.message}` : String(error);
  return (
    <p role="alert" className="error">
      {t('app.error', { message })}
    </p>
  );
}
