import { Controller, Res } from '@nestjs/common';
import type { Response } from 'express';
import { z } from 'zod';
import { access, AppError, type Caller, CurrentCaller, Endpoint, endpoint, hasRole, Input, type InputOf } from '@mw/platform';
import {
  AvailabilityQuery,
  AvailabilityView,
  LowStockQuery,
  LowStockView,
  ProductParams,
  PublicStockLevelView,
  RestockBody,
  RestockHeaders,
  SetStockBody,
  SetStockHeaders,
  StockLevelView,
  StockParams,
  stockLevelExample,
} from './stock.dto';
import { StockService } from './stock.service';
import { levelFor, STOCK_STAFF_ROLES, StockLevel } from './stock';
import { etagOf, type StockActor, versionOf } from './stock-writes';

const zoneNote = 'Zones are configuration (ZONES): a well-formed zone code the service does not serve is a 422 INVENTORY.UNKNOWN_ZONE naming `params.zone`.';

export const restockEndpoint = endpoint({
  operationId: 'restock',
  method: 'POST',
  path: '/stock/:productId/:zone/restock',
  tag: 'stock',
  summary: 'Receive units of a product in a zone',
  description:
    'Adds `qty` available units and a `restock` movement to the ledger (with who made it and the key); creates the stock document on the first restock. ' +
    'Requires `Idempotency-Key` (400 naming `headers.idempotency-key` without it): a retry with the same key and body answers the first answer again and adds nothing; ' +
    `the same key with another qty or reason is a 422 INVENTORY.IDEMPOTENCY_KEY_REUSED. The answer carries the new version as \`ETag\`. ${zoneNote}`,
  access: access.roles('stock_manager'),
  params: StockParams,
  headers: RestockHeaders,
  body: RestockBody,
  bodyExample: { qty: 50, reason: 'delivery 2026-03-14' },
  response: { status: 201, description: 'The level after the restock', schema: StockLevelView, example: stockLevelExample },
});

export const setStockEndpoint = endpoint({
  operationId: 'setStock',
  method: 'PUT',
  path: '/stock/:productId/:zone',
  tag: 'stock',
  summary: 'Set the available level after a stock-take',
  description:
    'A conditional write: `If-Match` names the version the count was made against (the `ETag` of GET /stock/{productId}/{zone}; `"0"` for a zone never stocked). ' +
    'Without it 428 COMMON.PRECONDITION_REQUIRED; when the stock changed since (a reservation, a sale, another count, a replayed request) 412 INVENTORY.STALE_VERSION with the current `ETag`, and nothing is written. ' +
    `The difference from the current level is an \`adjust\` movement in the ledger (with who made it); reserved and committed units are untouched. The answer carries the new \`ETag\`. ${zoneNote}`,
  access: access.roles('stock_manager'),
  params: StockParams,
  headers: SetStockHeaders,
  body: SetStockBody,
  bodyExample: { available: 42, reason: 'stock-take: 2 damaged' },
  response: { status: 200, description: 'The level after the stock-take', schema: StockLevelView, example: { ...stockLevelExample, available: 42, version: 10 } },
  errors: [412, 428],
});

export const zoneStockEndpoint = endpoint({
  operationId: 'zoneStock',
  method: 'GET',
  path: '/stock/:productId/:zone',
  tag: 'stock',
  summary: 'The level of a product in one zone, with its version as ETag (for a stock-take)',
  description: `Read from the primary. The \`ETag\` header (the version in quotes) is what a stock-take sends as \`If-Match\`. Zeros and version 0 (ETag \`"0"\`) where the product was never stocked. ${zoneNote}`,
  access: access.roles('stock_manager', 'operator'),
  params: StockParams,
  response: { status: 200, description: 'The level; header ETag: its version', schema: StockLevelView, example: stockLevelExample },
  errors: [422],
});

export const productStockEndpoint = endpoint({
  operationId: 'productStock',
  method: 'GET',
  path: '/stock/:productId',
  tag: 'stock',
  summary: 'Availability of a product in every zone',
  description:
    'One entry per configured zone, zeros where the product was never stocked; read from the primary. Anyone (no token, ' +
    'or a customer) sees `{product_id, zone, available}` only: reserved and committed units are sales figures. A token with ' +
    'the role stock_manager, operator or support sees the whole level: also `reserved`, `committed`, `version` (0: never ' +
    'stocked) and `updated_at` (null: never stocked). A token, when sent, must be valid (401 otherwise).',
  access: access.optionalUser,
  params: ProductParams,
  response: {
    status: 200,
    description: 'The level in every zone: availability only, or the whole level for staff',
    schema: z.array(z.union([StockLevelView.meta({ description: 'Staff: the whole level' }), PublicStockLevelView])),
    example: [
      { product_id: stockLevelExample.product_id, zone: 'MSK', available: 44 },
      { product_id: stockLevelExample.product_id, zone: 'SPB', available: 0 },
    ],
  },
});

export const availabilityEndpoint = endpoint({
  operationId: 'availability',
  method: 'GET',
  path: '/availability',
  tag: 'stock',
  summary: 'Availability of a page of products in one zone',
  description:
    'What a listing shows on its product cards: the available units of up to 100 products in one zone, in one read (by stock document id, from the primary). ' +
    'One entry per distinct product asked for, in the order asked, 0 where the product was never stocked in the zone. Anyone may read it: no reserved or sold figures. ' +
    'A well-formed zone code the service does not serve (zones are configuration) is a 422 INVENTORY.UNKNOWN_ZONE naming `query.zone`.',
  access: access.public,
  rateLimit: 'reads',
  query: AvailabilityQuery,
  response: {
    status: 200,
    description: 'The availability of each product asked for',
    schema: AvailabilityView,
    example: { zone: 'MSK', items: [{ product_id: stockLevelExample.product_id, available: 44 }, { product_id: '5eed00000000000000000406', available: 0 }] },
  },
  errors: [422],
});

export const lowStockEndpoint = endpoint({
  operationId: 'lowStock',
  method: 'GET',
  path: '/low-stock',
  tag: 'stock',
  summary: 'Items of a zone at or below a threshold of available units',
  description: 'Lowest available first. A well-formed zone code the service does not serve (zones are configuration) is a 422 INVENTORY.UNKNOWN_ZONE naming `query.zone`.',
  access: access.roles('stock_manager', 'operator'),
  rateLimit: 'reads',
  query: LowStockQuery,
  response: { status: 200, description: 'The low items', schema: LowStockView, example: { zone: 'MSK', threshold: 5, items: [{ ...stockLevelExample, available: 3 }] } },
});

@Controller()
export class StockController {
  constructor(private readonly stock: StockService) {}

  @Endpoint(restockEndpoint)
  async restock(
    @Input() { params, body, headers }: InputOf<typeof restockEndpoint>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StockLevel> {
    const key = headers['idempotency-key'];
    return withEtag(res, await this.stock.restock(params.productId, params.zone, body.qty, body.reason, key, stockManager(caller)));
  }

  @Endpoint(setStockEndpoint)
  async set(
    @Input() { params, body, headers }: InputOf<typeof setStockEndpoint>,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StockLevel> {
    const expected = versionOf(headers['if-match']);
    return withEtag(res, await this.stock.set(params.productId, params.zone, body.available, body.reason, expected, stockManager(caller)));
  }

  @Endpoint(zoneStockEndpoint)
  async inZone(@Input() { params }: InputOf<typeof zoneStockEndpoint>, @Res({ passthrough: true }) res: Response): Promise<StockLevel> {
    return withEtag(res, await this.stock.inZone(params.productId, params.zone));
  }

  @Endpoint(productStockEndpoint)
  async ofProduct(@Input() { params }: InputOf<typeof productStockEndpoint>, @CurrentCaller() caller: Caller): Promise<ReturnType<typeof levelFor>[]> {
    const staff = hasRole(caller, ...STOCK_STAFF_ROLES);
    return (await this.stock.ofProduct(params.productId)).map((level) => levelFor(level, staff));
  }

  @Endpoint(availabilityEndpoint)
  availability(@Input() { query }: InputOf<typeof availabilityEndpoint>): Promise<z.output<typeof AvailabilityView>> {
    return this.stock.availability(query.zone, query.product_ids);
  }

  @Endpoint(lowStockEndpoint)
  lowStock(@Input() { query }: InputOf<typeof lowStockEndpoint>): Promise<z.output<typeof LowStockView>> {
    return this.stock.lowStock(query.zone, query.threshold, query.limit);
  }
}

/** The level as the answer, its version as the ETag a stock-take sends back in If-Match. */
function withEtag(res: Response, level: StockLevel): StockLevel {
  res.setHeader('ETag', etagOf(level.version));
  return level;
}

/** The audit actor of a stock write: the token's subject, acting as stock manager (the only role allowed). */
function stockManager(caller: Caller): StockActor {
  if (caller.kind !== 'user') throw new AppError('AUTH.UNAUTHENTICATED', 'unauthenticated', 'this operation needs a bearer access token');
  return { sub: caller.id, role: 'stock_manager' };
}
