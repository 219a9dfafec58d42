import { z } from 'zod';
import { Inventory, IsoDateTime, ObjectIdHex } from '@mw/contracts';
import { Count } from '../stock/stock.dto';
import type { ReservationDoc, ReservationStatus } from './reservation';

export const ReservationParams = z.strictObject({ orderId: ObjectIdHex });

const STATUSES = [
  'reserving',
  'reserved',
  'rejected',
  'released',
  'expired',
  'committed',
  'returned',
] as const satisfies readonly ReservationStatus[];

/** What a client sees of an order's reservation: its state and the answer it was given. */
export const ReservationView = z.object({
  order_id: z.string(),
  zone: z
    .string()
    .meta({ description: 'Empty for an order never reserved (a release or commit came first)' }),
  lines: z.array(z.object({ product_id: z.string(), qty: Count })),
  status: z.enum(STATUSES),
  expires_at: IsoDateTime.meta({ description: 'When the holds of a reserved order expire' }),
  rejection: z
    .object({
      code: Inventory.StockRejectionCode,
      message: z.string().optional(),
      shortages: z.array(z.object({ product_id: z.string(), requested: Count, available: z.number().int() })),
    })
    .optional()
    .meta({ description: 'Why the reservation was rejected' }),
  release_reason: z.enum(['compensation', 'expired', 'cancelled']).optional(),
  commit_failure: Inventory.StockRejectionCode.optional().meta({
    description: 'The code of the StockCommitFailed answered to a commit',
  }),
  return_reason: z
    .enum(['cancelled_by_customer'])
    .optional()
    .meta({ description: 'Why a sold order was returned (status `returned`)' }),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
});
export type ReservationView = z.output<typeof ReservationView>;

export function toReservationView(doc: ReservationDoc): ReservationView {
  return {
    order_id: doc._id,
    zone: doc.zone,
    lines: doc.lines.map((l) => ({ product_id: l.product_id, qty: l.qty })),
    status: doc.status,
    expires_at: doc.expires_at.toISOString(),
    ...(doc.rejection ? { rejection: doc.rejection } : {}),
    ...(doc.release_reason ? { release_reason: doc.release_reason } : {}),
    ...(doc.commit_failure ? { commit_failure: doc.commit_failure } : {}),
    ...(doc.return_reason ? { return_reason: doc.return_reason } : {}),
    created_at: doc.created_at.toISOString(),
    updated_at: doc.updated_at.toISOString(),
  };
}

export const reservationExample: ReservationView = {
  order_id: '66f1c0ffee00000000000042',
  zone: 'MSK',
  lines: [{ product_id: '5eed00000000000000000405', qty: 2 }],
  status: 'committed',
  expires_at: '2026-03-14T09:36:50.102Z',
  created_at: '2026-03-14T09:26:50.102Z',
  updated_at: '2026-03-14T09:26:53.589Z',
};
