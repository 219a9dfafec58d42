import type { EnvelopeOf, MessageTypeOf } from '@mw/contracts';
import { assertUnreachable } from '@mw/platform';
import type { SagaInput } from './saga';

const ORDER_ID = /^[0-9a-fA-F]{24}$/;

/** Which inventory events move the saga (exhaustive: a new event type must be placed here). */
const FOLLOWS = {
  StockReserved: true,
  StockRejected: true,
  StockCommitted: true,
  StockCommitFailed: true,
  StockReleased: true,
  StockReturned: true,
  StockReturnFailed: true,
  StockLevelChanged: false,
} satisfies Record<MessageTypeOf<'inventory.events.v1'>, boolean>;

/** The inventory event types the saga follows: records of the others are passed over by their type header, unparsed. */
export const SAGA_REPLY_TYPES: ReadonlySet<string> = new Set(
  Object.entries(FOLLOWS).flatMap(([type, followed]) => (followed ? [type] : [])),
);

/** Maps an inventory reply to the saga input of its order; null for events the saga does not follow. */
export function sagaInputOf(
  e: EnvelopeOf<'inventory.events.v1'>,
): { orderId: string; input: SagaInput } | null {
  switch (e.type) {
    case 'StockReserved':
      return {
        orderId: e.payload.order_id.toLowerCase(),
        input: { type: 'StockReserved', id: e.id, expires_at: new Date(e.payload.expires_at) },
      };
    case 'StockRejected':
      // Salvaged rejections may carry an order id that is no order of ours.
      if (!ORDER_ID.test(e.payload.order_id)) return null;
      return {
        orderId: e.payload.order_id.toLowerCase(),
        input: { type: 'StockRejected', id: e.id, code: e.payload.code },
      };
    case 'StockCommitted':
      return { orderId: e.payload.order_id.toLowerCase(), input: { type: 'StockCommitted', id: e.id } };
    case 'StockCommitFailed':
      return {
        orderId: e.payload.order_id.toLowerCase(),
        input: { type: 'StockCommitFailed', id: e.id, code: e.payload.code },
      };
    case 'StockReleased':
      return { orderId: e.payload.order_id.toLowerCase(), input: { type: 'StockReleased', id: e.id } };
    case 'StockReturned':
      return { orderId: e.payload.order_id.toLowerCase(), input: { type: 'StockReturned', id: e.id } };
    case 'StockReturnFailed':
      return {
        orderId: e.payload.order_id.toLowerCase(),
        input: { type: 'StockReturnFailed', id: e.id, code: e.payload.code },
      };
    case 'StockLevelChanged':
      return null;
    default:
      return assertUnreachable(e);
  }
}
