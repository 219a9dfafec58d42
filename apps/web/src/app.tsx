import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { UserManager } from 'oidc-client-ts';
import { type ReactNode, useEffect, useState } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router-dom';
import { ApiProvider } from './api/api-context';
import { ApiError } from './api/clients';
import { AuthProvider, useAuth } from './auth/auth';
import { CallbackPage } from './auth/callback-page';
import type { StaffRole } from './auth/roles';
import { CartPage } from './cart/cart-page';
import { CategoryPage, HomePage } from './catalog/catalog-pages';
import { ProductPage } from './catalog/product-page';
import { SearchPage } from './catalog/search-page';
import type { AppConfig } from './config';
import { I18nProvider, useT } from './i18n/i18n';
import type { Locale } from './i18n/messages';
import { ActivityPage } from './orders/activity-page';
import { OrderPage } from './orders/order-page';
import { OrdersPage } from './orders/orders-page';
import { Layout } from './shell/layout';
import { NotFound } from './shell/status';
import { ZoneProvider } from './shell/zone';
import { CatalogAdminPage } from './staff/catalog-admin-page';
import { OperatorPage } from './staff/operator-page';
import { StockPage } from './staff/stock-page';
import { KafkaPage } from './staff/kafka-page';
import { StuckOrdersPage } from './staff/stuck-orders-page';
import { SupportPage } from './staff/support-page';

/** A page for some roles only: absent (a note, no calls) for everybody else; the services check the role again. */
function ForRoles({ roles, children }: { roles: readonly (StaffRole | 'customer')[]; children: ReactNode }) {
  const t = useT();
  const auth = useAuth();
  const signedOut = !auth.user;
  const { signIn } = auth;
  // a signed-out visitor of a role page (a bookmark, a shared order link) goes to sign-in and comes back
  useEffect(() => {
    if (signedOut) void signIn(window.location.pathname + window.location.search);
  }, [signedOut, signIn]);
  if (signedOut) return <p role="status">{t('auth.signingIn')}</p>;
  return roles.some((r) => auth.hasRole(r)) ? children : <p role="alert">{t('staff.forbidden')}</p>;
}

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // a 4xx is an answer, not a glitch: only network errors and 5xx are retried
        retry: (n, e) => n < 2 && !(e instanceof ApiError && e.status < 500),
        refetchOnWindowFocus: false,
      },
    },
  });
}

export function App({
  config,
  manager,
  locale,
}: {
  config: AppConfig;
  manager: UserManager;
  locale: Locale;
}) {
  const [queryClient] = useState(newQueryClient);
  return (
    <I18nProvider locale={locale}>
      <QueryClientProvider client={queryClient}>
        <AuthProvider manager={manager}>
          <ApiProvider config={config}>
            <ZoneProvider>
              <BrowserRouter>
                <Layout>
                  <Routes>
                    <Route path="/" element={<HomePage />} />
                    <Route path="/c/:slug" element={<CategoryPage />} />
                    <Route path="/search" element={<SearchPage />} />
                    <Route path="/p/:id" element={<ProductPage />} />
                    <Route path="/cart" element={<CartPage />} />
                    <Route path="/auth/callback" element={<CallbackPage config={config} />} />
                    <Route
                      path="/orders"
                      element={
                        <ForRoles roles={['customer']}>
                          <OrdersPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/orders/:id"
                      element={
                        <ForRoles roles={['customer', 'support', 'operator']}>
                          <OrderPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/activity"
                      element={
                        <ForRoles roles={['customer']}>
                          <ActivityPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/catalog"
                      element={
                        <ForRoles roles={['catalog_manager']}>
                          <CatalogAdminPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/stock"
                      element={
                        <ForRoles roles={['stock_manager']}>
                          <StockPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/support"
                      element={
                        <ForRoles roles={['support']}>
                          <SupportPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/operator"
                      element={
                        <ForRoles roles={['operator']}>
                          <OperatorPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/stuck-orders"
                      element={
                        <ForRoles roles={['operator']}>
                          <StuckOrdersPage />
                        </ForRoles>
                      }
                    />
                    <Route
                      path="/staff/kafka"
                      element={
                        <ForRoles roles={['operator']}>
                          <KafkaPage />
                        </ForRoles>
                      }
                    />
                    <Route path="*" element={<NotFound />} />
                  </Routes>
                </Layout>
              </BrowserRouter>
            </ZoneProvider>
          </ApiProvider>
        </AuthProvider>
      </QueryClientProvider>
    </I18nProvider>
  );
}
