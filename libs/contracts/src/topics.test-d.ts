/**
 * Type-level tests: compiled by `nx typecheck contracts` (tsc), never executed.
 * Each `@ts-expect-error` line must fail to compile; if the registry stopped rejecting it,
 * tsc reports "Unused '@ts-expect-error' directive" and the typecheck fails.
 */
import { createMessage, OutgoingMessage } from './envelope-factory';
import { EnvelopeOf } from './topics';

const trace = { correlation_id: 'c-1', causation_id: null };
const orderId = '65f000000000000000000001';

// A correct message compiles.
export const ok: OutgoingMessage<'inventory.commands.v1'> = createMessage(
  'inventory.commands.v1',
  'ReserveStock',
  { order_id: orderId, zone: 'MSK', lines: [{ product_id: orderId, qty: 1 }], hold_seconds: 600 },
  trace,
);

// @ts-expect-error — StockReserved is an event; it does not belong on the commands topic.
createMessage('inventory.commands.v1', 'StockReserved', { order_id: orderId }, trace);

// @ts-expect-error — ReleaseStock's payload has no `zone`, and lacks nothing else: wrong shape for ReserveStock.
createMessage('inventory.commands.v1', 'ReserveStock', { order_id: orderId }, trace);

// @ts-expect-error — an unknown topic does not compile.
createMessage('inventory.comands.v1', 'ReserveStock', {}, trace);

// @ts-expect-error — qty must be a number (minor units / counts are never strings in payloads).
createMessage('inventory.commands.v1', 'ReserveStock', { order_id: orderId, zone: 'MSK', lines: [{ product_id: orderId, qty: '1' }], hold_seconds: 1 }, trace);

// A consumer switch over a topic's union narrows payloads by `type`.
export function describeEvent(e: EnvelopeOf<'inventory.events.v1'>): string {
  switch (e.type) {
    case 'StockReserved':
      return e.payload.expires_at;
    case 'StockRejected':
      return e.payload.code;
    case 'StockReleased':
      return e.payload.reason;
    case 'StockCommitted':
      return e.payload.order_id;
    case 'StockCommitFailed':
      return e.payload.code;
    case 'StockReturned':
      return e.payload.zone;
    case 'StockReturnFailed':
      return e.payload.code;
    case 'StockLevelChanged':
      // @ts-expect-error — StockLevelChanged has no expires_at.
      return e.payload.expires_at;
  }
}
