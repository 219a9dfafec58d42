/**
 * One typed client per service, from the generated OpenAPI types (src/api/generated, never edited by
 * hand). The bearer token is added by a middleware from whoever is signed in; a guest's session
 * travels as the X-Guest-Session header the carts API declares as its guestSession scheme.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { AppConfig } from '../config';
import type { paths as CartsPaths } from './generated/carts';
import type { components as CatalogComponents, paths as CatalogPaths } from './generated/catalog';
import type { paths as InventoryPaths } from './generated/inventory';
import type { paths as OrdersPaths } from './generated/orders';

export interface Api {
  readonly catalog: Client<CatalogPaths>;
  readonly inventory: Client<InventoryPaths>;
  readonly carts: Client<CartsPaths>;
  readonly orders: Client<OrdersPaths>;
}

/** The body of every error answer: a stable code, a message, the fields at fault (the same schema in every document). */
export type Problem = CatalogComponents['schemas']['Problem'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
  ) {
    super(problem.message ?? problem.code ?? `HTTP ${status}`);
  }
  get code(): string | undefined {
    return this.problem.code;
  }
}

/** The data of an openapi-fetch answer, or an ApiError with the problem the service sent. */
export function unwrap<T>(r: { data?: T; error?: unknown; response: Response }): T {
  if (r.response.ok && r.data !== undefined) return r.data;
  if (r.response.ok) return undefined as T; // 204
  throw new ApiError(r.response.status, (r.error ?? {}) as Partial<Problem>);
}

export function createApi(
  config: AppConfig,
  token: () => string | undefined,
  fetchImpl: typeof fetch = (input, init) => fetch(input, init),
): Api {
  const auth: Middleware = {
    onRequest({ request }) {
      const t = token();
      if (t && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${t}`);
      return request;
    },
  };
  const make = <P extends object>(baseUrl: string): Client<P> => {
    const c = createClient<P>({ baseUrl, fetch: fetchImpl });
    c.use(auth);
    return c;
  };
  return {
    catalog: make<CatalogPaths>(config.api.catalog),
    inventory: make<InventoryPaths>(config.api.inventory),
    carts: make<CartsPaths>(config.api.carts),
    orders: make<OrdersPaths>(config.api.orders),
  };
}
