import type { ApiDescription } from '@mw/platform';

/** The projector process answers only the platform's /health, /health/ready and /metrics. */
export const projectorApi: ApiDescription = {
  name: 'catalog-projector',
  title: 'Mobile World — catalog projector',
  description:
    'Projects catalog.products.v1 into the Cassandra read model (products_by_id, products_by_category). ' +
    'Over HTTP only liveness, readiness (Cassandra and its consumer) and Prometheus metrics.',
  version: '1',
  controllers: [],
};
