import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { useAuth } from '../auth/auth';
import { useZone } from '../shell/zone';
import { type Cart, currentCart, type Owner, putItem } from './cart-store';

export function useOwner(): Owner {
  const { subject } = useAuth();
  return subject ? { kind: 'user', subject } : { kind: 'guest' };
}

export const cartQueryKey = (owner: Owner, zone: string): readonly unknown[] => [
  'cart',
  owner.kind === 'user' ? owner.subject : 'guest',
  zone,
];

/** The cart of the current owner in the current zone (null: none yet), and its changes. */
export function useCart() {
  const api = useApi();
  const owner = useOwner();
  const { zone } = useZone();
  const qc = useQueryClient();
  const key = cartQueryKey(owner, zone);
  const cart = useQuery({ queryKey: key, queryFn: () => currentCart(api, owner, zone, false) });
  const setQty = useMutation({
    mutationFn: async ({ productId, qty }: { productId: string; qty: number }): Promise<Cart> => {
      const c = (await currentCart(api, owner, zone, true)) as Cart;
      return putItem(api, owner, c.cart_id, productId, qty);
    },
    onSuccess: (c) => qc.setQueryData(key, c),
  });
  /** Adds units to what the cart holds (the server caps and prices the line). */
  const add = useMutation({
    mutationFn: async ({ productId, qty }: { productId: string; qty: number }): Promise<Cart> => {
      const c = (await currentCart(api, owner, zone, true)) as Cart;
      return putItem(api, owner, c.cart_id, productId, (c.items[productId]?.qty ?? 0) + qty);
    },
    onSuccess: (c) => qc.setQueryData(key, c),
  });
  return { cart, setQty, add, owner, zone };
}
