import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { formatMoney, type Locale, type MessageKey, translate } from './messages';

type T = (key: MessageKey, params?: Readonly<Record<string, string | number>>) => string;
const LOCALE_KEY = 'mw.locale';
const I18nContext = createContext<{ locale: Locale; t: T; setLocale(l: Locale): void }>({
  locale: 'ru',
  t: (key, params) => translate('ru', key, params),
  setLocale: () => undefined,
});

/** The locale a visitor chose before (`localStorage['mw.locale']`); Russian unless it was English. */
export const savedLocale = (): Locale => (localStorage.getItem(LOCALE_KEY) === 'en' ? 'en' : 'ru');

export function I18nProvider({ locale: initial, children }: { locale: Locale; children: ReactNode }) {
  const [locale, set] = useState<Locale>(initial);
  const t = useCallback<T>((key, params) => translate(locale, key, params), [locale]);
  const setLocale = useCallback((l: Locale) => {
    localStorage.setItem(LOCALE_KEY, l);
    document.documentElement.lang = l;
    set(l);
  }, []);
  const value = useMemo(() => ({ locale, t, setLocale }), [locale, t, setLocale]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useT(): T {
  return useContext(I18nContext).t;
}

export function useLocale(): { locale: Locale; setLocale(l: Locale): void } {
  const { locale, setLocale } = useContext(I18nContext);
  return { locale, setLocale };
}

/** Roubles as the services send them (decimal strings), formatted for the locale (ru-RU: «59 990,00 ₽»). */
export function useMoney(): (amount: string) => string {
  const { locale } = useContext(I18nContext);
  return useCallback((amount: string) => formatMoney(locale, amount), [locale]);
}
