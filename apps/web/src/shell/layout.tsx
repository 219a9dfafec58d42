import { type ReactNode } from 'react';
import { Link, NavLink, useLocation } from 'react-router-dom';
import { useAuth } from '../auth/auth';
import { useCart } from '../cart/use-cart';
import { useLocale, useT } from '../i18n/i18n';
import { isZone, useZone, ZONES } from './zone';

function ZonePicker() {
  const t = useT();
  const { zone, setZone } = useZone();
  return (
    <label className="zone">
      {t('zone.label')}{' '}
      <select
        value={zone}
        onChange={(e) => {
          if (isZone(e.target.value)) setZone(e.target.value);
        }}
      >
        {ZONES.map((z) => (
          <option key={z} value={z}>
            {t(`zone.${z}`)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Switches the interface between Russian (the default) and English; remembered across visits. */
function LanguageSwitch() {
  const t = useT();
  const { locale, setLocale } = useLocale();
  const other = locale === 'ru' ? 'en' : 'ru';
  return (
    <button type="button" className="lang" lang={other} onClick={() => setLocale(other)}>
      {t('lang.other')}
    </button>
  );
}

function CartLink() {
  const t = useT();
  const { cart } = useCart();
  // a cart on its way to an order is not what the next purchase goes into
  const active = cart.data?.status === 'active' ? cart.data : undefined;
  const count = Object.values(active?.items ?? {}).reduce((n, i) => n + i.qty, 0);
  return <NavLink to="/cart">{t('nav.cart', { count })}</NavLink>;
}

function Account() {
  const t = useT();
  const auth = useAuth();
  const location = useLocation();
  if (!auth.user)
    return (
      <button type="button" onClick={() => void auth.signIn(location.pathname + location.search)}>
        {t('auth.signIn')}
      </button>
    );
  return (
    <span className="account">
      <span>{t('auth.signedInAs', { name: auth.name ?? auth.subject ?? '' })}</span>{' '}
      <button type="button" onClick={() => void auth.signOut()}>
        {t('auth.signOut')}
      </button>
    </span>
  );
}

export function Layout({ children }: { children: ReactNode }) {
  const t = useT();
  const auth = useAuth();
  return (
    <>
      <header>
        <Link to="/" className="brand">
          {t('app.name')}
        </Link>
        <nav aria-label={t('nav.main')}>
          <NavLink to="/" end>
            {t('nav.catalog')}
          </NavLink>
          <NavLink to="/search">{t('nav.search')}</NavLink>
          <CartLink />
          {auth.hasRole('customer') && <NavLink to="/orders">{t('nav.orders')}</NavLink>}
          {auth.hasRole('customer') && <NavLink to="/activity">{t('nav.activity')}</NavLink>}
          {auth.hasRole('catalog_manager') && <NavLink to="/staff/catalog">{t('nav.staff.catalog')}</NavLink>}
          {auth.hasRole('stock_manager') && <NavLink to="/staff/stock">{t('nav.staff.stock')}</NavLink>}
          {auth.hasRole('support') && <NavLink to="/staff/support">{t('nav.staff.support')}</NavLink>}
          {auth.hasRole('operator') && <NavLink to="/staff/operator">{t('nav.staff.operator')}</NavLink>}
          {auth.hasRole('operator') && <NavLink to="/staff/stuck-orders">{t('nav.staff.stuck')}</NavLink>}
          {auth.hasRole('operator') && <NavLink to="/staff/kafka">{t('nav.staff.kafka')}</NavLink>}
        </nav>
        <ZonePicker />
        <LanguageSwitch />
        <Account />
      </header>
      <main>{children}</main>
    </>
  );
}
