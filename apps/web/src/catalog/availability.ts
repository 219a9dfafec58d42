/**
 * Availability as a shopper reads it: in stock, a few left, out of stock — from inventory's
 * `GET /availability` (one request for a page of up to 100 products in the chosen zone).
 */
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../api/api-context';
import { unwrap } from '../api/clients';
import type { MessageKey } from '../i18n/messages';
import { useZone } from '../shell/zone';

/** At or below this many units a card says "only N left". */
export const FEW_LEFT = 5;
/** What one availability request may ask for (the endpoint's limit). */
export const AVAILABILITY_PAGE = 100;

export type StockState = 'in' | 'few' | 'out';

export function stockState(available: number): StockState {
  return available <= 0 ? 'out' : available <= FEW_LEFT ? 'few' : 'in';
}

export const STOCK_TEXT: Readonly<Record<StockState, MessageKey>> = {
  in: 'stock.in',
  few: 'stock.few',
  out: 'stock.out',
};

export function chunks<T>(xs: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}

/** Units available in the chosen zone per product id (absent while loading). Refetched on every visit: a sale shows. */
export function useAvailability(productIds: readonly string[]) {
  const api = useApi();
  const { zone } = useZone();
  return useQuery({
    queryKey: ['availability', zone, productIds],
    enabled: productIds.length > 0,
    queryFn: async (): Promise<ReadonlyMap<string, number>> => {
      const pages = await Promise.all(
        chunks(productIds, AVAILABILITY_PAGE).map(async (ids) =>
          unwrap(
            await api.inventory.GET('/availability', {
              params: { query: { zone, product_ids: ids.join(',') } },
            }),
          ),
        ),
      );
      return new Map(pages.flatMap((p) => p.items.map((i) => [i.product_id, i.available] as const)));
    },
  });
}
