import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { access, type Caller, CurrentCaller, Endpoint, endpoint, hasRole, Input, type InputOf } from '@mw/platform';
import { LowStockQuery, LowStockView, ProductParams, PublicStockLevelView, RestockBody, SetStockBody, StockLevelView, StockParams, stockLevelExample } from './stock.dto';
import { StockService } from './stock.service';
import { levelFor, STOCK_STAFF_ROLES, StockLevel } from './stock';

const zoneNote = 'Zones are configuration (ZONES): a well-formed zone code the service does not serve is a 422 INVENTORY.UNKNOWN_ZONE naming `params.zone`.';

export const restockEndpoint = endpoint({
  operationId: 'restock',
  method: 'POST',
  path: '/stock/:productId/:zone/restock',
  tag: 'stock',
  summary: 'Receive units of a product in a zone',
  description: `Adds \`qty\` available units and a \`restock\` movement to the ledger; creates the stock document on the first restock. ${zoneNote}`,
  access: access.roles('stock_manager'),
  params: StockParams,
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
  description: `The difference from the current level is an \`adjust\` movement in the ledger; reserved and committed units are untouched. 409 INVENTORY.CONCURRENT_UPDATE when reservations kept changing the level. ${zoneNote}`,
  access: access.roles('stock_manager'),
  params: StockParams,
  body: SetStockBody,
  bodyExample: { available: 42, reason: 'stock-take: 2 damaged' },
  response: { status: 200, description: 'The level after the stock-take', schema: StockLevelView, example: { ...stockLevelExample, available: 42, version: 10 } },
  errors: [409],
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
  restock(@Input() { params, body }: InputOf<typeof restockEndpoint>): Promise<StockLevel> {
    return this.stock.restock(params.productId, params.zone, body.qty, body.reason);
  }

  @Endpoint(setStockEndpoint)
  set(@Input() { params, body }: InputOf<typeof setStockEndpoint>): Promise<StockLevel> {
    return this.stock.set(params.productId, params.zone, body.available, body.reason);
  }

  @Endpoint(productStockEndpoint)
  async ofProduct(@Input() { params }: InputOf<typeof productStockEndpoint>, @CurrentCaller() caller: Caller): Promise<ReturnType<typeof levelFor>[]> {
    const staff = hasRole(caller, ...STOCK_STAFF_ROLES);
    return (await this.stock.ofProduct(params.productId)).map((level) => levelFor(level, staff));
  }

  @Endpoint(lowStockEndpoint)
  lowStock(@Input() { query }: InputOf<typeof lowStockEndpoint>): Promise<z.output<typeof LowStockView>> {
    return this.stock.lowStock(query.zone, query.threshold, query.limit);
  }
}
