import { createContext, type ReactNode, useCallback, useContext, useMemo } from 'react';
import { type Locale, type MessageKey, translate } from './messages';

type T = (key: MessageKey, params?: Readonly<Record<string, string | number>>) => string;
const I18nContext = createContext<{ locale: Locale; t: T }>({
  locale: 'en',
  t: (key, params) => translate('en', key, params),
});

export function I18nProvider({ locale, children }: { locale: Locale; children: ReactNode }) {
  const t = useCallback<T>((key, params) => translate(locale, key, params), [locale]);
  const value = useMemo(() => ({ locale, t }), [locale, t]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useT(): T {
  return useContext(I18nContext).t;
}

/** Roubles as the services send them (decimal strings), formatted for the locale. */
export function useMoney(): (amount: string) => string {
  const { locale, t } = useContext(I18nContext);
  return useCallback(
    (amount: string) =>
      t('money.rub', {
        amount: Number(amount).toLocaleString(locale === 'ru' ? 'ru-RU' : 'en-US', {
          minimumFractionDigits: 2,
          maximumFractionDigits: 2,
        }),
      }),
    [locale, t],
  );
}
