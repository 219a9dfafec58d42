import { z } from 'zod';
import { decodeEnvelope, ObjectIdHex, RawEnvelope } from '@mw/contracts';
import { InboundRecord } from '@mw/messaging';

const LooseReserve = z.object({
  order_id: ObjectIdHex,
  zone: z.unknown(),
  lines: z.array(z.object({ product_id: z.unknown(), qty: z.unknown() }).loose()).max(10_000),
  hold_seconds: z.unknown(),
});

export interface SalvagedReserve {
  readonly envelope: RawEnvelope;
  readonly order_id: string;
  readonly zone: unknown;
  readonly lines: { product_id: unknown; qty: unknown }[];
  readonly hold_seconds: unknown;
}

/**
 * A ReserveStock that breaks the contract (negative, zero or fractional qty, malformed product id,
 * too many lines) but still names a valid order id in a valid envelope is answered with a
 * StockRejected instead of being dead-lettered, so the saga is not left waiting. Anything less
 * readable returns null and goes to the dead-letter topic.
 */
export function salvageReserve(record: InboundRecord): SalvagedReserve | null {
  let value: unknown;
  try {
    value = JSON.parse(record.value === null ? 'null' : record.value.toString());
  } catch {
    return null;
  }
  if (decodeEnvelope('inventory.commands.v1', value).ok) return null; // valid: not a salvage case
  const envelope = RawEnvelope.safeParse(value);
  if (!envelope.success || envelope.data.type !== 'ReserveStock' || envelope.data.version !== 1) return null;
  const payload = LooseReserve.safeParse(envelope.data.payload);
  if (!payload.success) return null;
  return { envelope: envelope.data, ...payload.data, lines: payload.data.lines };
}
