import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import { useAuth } from '../auth/auth';
import { useMoney, useT } from '../i18n/i18n';
import { ErrorView, Loading } from '../shell/status';
import { MergeNotice } from './merge-notice';
import { useCart } from './use-cart';

/** One Idempotency-Key per checkout attempt: a double click or a retry after a lost answer starts one checkout. */
export function useCheckout(cartId: string | undefined) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const key = useRef<string | undefined>(undefined);
  const busy = useRef(false);
  const mutation = useMutation({
    mutationFn: async () => {
      if (!cartId) throw new Error('no cart');
      key.current ??= crypto.randomUUID();
      const r = unwrap(
        await api.carts.POST('/carts/{id}/checkout', {
          params: { path: { id: cartId } },
          headers: { 'Idempotency-Key': key.current },
        }),
      );
      return r.order_id;
    },
    onSuccess: async (orderId) => {
      key.current = undefined;
      await qc.invalidateQueries({ queryKey: ['cart'] });
      await navigate(`/orders/${orderId}?new=1`);
    },
    onSettled: () => {
      busy.current = false;
    },
  });
  /** A second click before React re-renders the disabled button is ignored: one request, not two with the same key. */
  const start = (): void => {
    if (busy.current) return;
    busy.current = true;
    mutation.mutate();
  };
  return { mutation, start };
}

export function CartPage() {
  const t = useT();
  const money = useMoney();
  const auth = useAuth();
  const { cart, setQty, zone } = useCart();
  const { mutation: checkout, start: startCheckout } = useCheckout(cart.data?.cart_id);
  const [editing, setEditing] = useState<Record<string, string>>({});
  if (cart.isPending) return <Loading />;
  if (cart.isError) return <ErrorView error={cart.error} />;
  const c = cart.data;
  const lines = Object.entries(c?.items ?? {});
  return (
    <section>
      <h1>{t('cart.title', { zone: t(`zone.${zone}`) })}</h1>
      <MergeNotice />
      {!c || lines.length === 0 ? (
        <p>{t('cart.empty')}</p>
      ) : (
        <>
          {c.status === 'checking_out' && <p role="status">{t('cart.status.checking_out')}</p>}
          <table className="cart">
            <thead>
              <tr>
                <th scope="col">{t('cart.product')}</th>
                <th scope="col">{t('cart.unitPrice')}</th>
                <th scope="col">{t('cart.qty')}</th>
                <th scope="col">{t('cart.lineTotal')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('cart.remove')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.map(([productId, line]) => (
                <tr key={productId} data-testid="cart-line">
                  <td>
                    {line.name}
                    {line.unit_price === null ? (
                      <div className="warning">{t('cart.notSold')}</div>
                    ) : (
                      !line.purchasable && <div className="warning">{t('cart.notAvailable')}</div>
                    )}
                  </td>
                  <td>{line.unit_price === null ? '—' : money(line.unit_price)}</td>
                  <td>
                    <input
                      aria-label={`${t('cart.qty')}: ${line.name}`}
                      type="number"
                      min={0}
                      max={99}
                      value={editing[productId] ?? String(line.qty)}
                      disabled={c.status !== 'active'}
                      onChange={(e) => setEditing({ ...editing, [productId]: e.target.value })}
                      onBlur={(e) => {
                        const qty = Number(e.target.value);
                        setEditing(({ [productId]: _, ...rest }) => rest);
                        if (Number.isInteger(qty) && qty !== line.qty) setQty.mutate({ productId, qty });
                      }}
                    />
                  </td>
                  <td>{line.line_total === null ? '—' : money(line.line_total)}</td>
                  <td>
                    <button
                      type="button"
                      disabled={c.status !== 'active'}
                      onClick={() => setQty.mutate({ productId, qty: 0 })}
                    >
                      {t('cart.remove')}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  {t('cart.total')}
                </th>
                <td data-testid="cart-total">{money(c.total)}</td>
                <td />
              </tr>
            </tfoot>
          </table>
          {setQty.isError && <ErrorView error={setQty.error} />}
          {auth.hasRole('customer') ? (
            <button
              type="button"
              className="primary"
              disabled={checkout.isPending || c.status !== 'active'}
              onClick={startCheckout}
            >
              {checkout.isPending ? t('cart.checkingOut') : t('cart.checkout')}
            </button>
          ) : (
            !auth.user && (
              <button type="button" className="primary" onClick={() => void auth.signIn('/cart')}>
                {t('cart.signInToCheckout')}
              </button>
            )
          )}
          {checkout.isError && <ErrorView error={checkout.error} />}
        </>
      )}
    </section>
  );
}
