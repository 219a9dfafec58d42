import { z } from 'zod';
import { IsoDateTime, ObjectIdHex, ZoneCode } from '@mw/contracts';
import { Count, ProductId } from '../stock/stock.dto';
import { LEDGER_KINDS, type LedgerEntry } from './ledger';

/** Request shapes of the ledger API (validated by the endpoint declarations in ledger.controller.ts). */
export const CheckQuery = z.strictObject({
  product_id: ObjectIdHex.optional().meta({ description: 'Only this product' }),
  zone: ZoneCode.optional().meta({ description: 'Only this zone' }),
});
export const HistoryParams = z.strictObject({ productId: ObjectIdHex, zone: ZoneCode });
export const HistoryQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

/** One movement as a client sees it. */
export const LedgerEntryView = z.object({
  id: z.uuid().meta({ description: 'Entry id (a movement is recorded once)' }),
  product_id: ProductId,
  zone: z.string(),
  kind: z.enum(LEDGER_KINDS),
  qty: z
    .number()
    .int()
    .meta({
      description: 'Units moved; positive, except `adjust`, whose sign is the direction of the correction',
    }),
  order_id: z
    .string()
    .optional()
    .meta({ description: 'The order of a reserve, release, expire, commit or return' }),
  reason: z.string().optional().meta({ description: 'The reason of a restock or adjust' }),
  by: z
    .object({
      sub: z.string().meta({ description: "The stock manager's token subject" }),
      role: z.string().meta({ description: 'The role they acted in (stock_manager)' }),
    })
    .optional()
    .meta({
      description:
        'Who made a restock or adjust (absent on entries recorded before the audit); a reservation movement names its order instead',
    }),
  idempotency_key: z.string().optional().meta({ description: 'The Idempotency-Key of a restock' }),
  at: IsoDateTime,
});
export type LedgerEntryView = z.output<typeof LedgerEntryView>;

export function toEntryView(e: LedgerEntry): LedgerEntryView {
  return {
    id: e._id,
    product_id: e.product_id,
    zone: e.zone,
    kind: e.kind,
    qty: e.qty,
    ...(e.order_id !== undefined ? { order_id: e.order_id } : {}),
    ...(e.reason !== undefined ? { reason: e.reason } : {}),
    ...(e.by !== undefined ? { by: { sub: e.by.sub, role: e.by.role } } : {}),
    ...(e.idempotency_key !== undefined ? { idempotency_key: e.idempotency_key } : {}),
    at: e.at.toISOString(),
  };
}

export const ledgerEntryExample: LedgerEntryView = {
  id: '0f8e4c1a-6b2d-4c3e-9a7f-1d2b3c4d5e6f',
  product_id: '5eed00000000000000000405',
  zone: 'MSK',
  kind: 'commit',
  qty: 2,
  order_id: '66f1c0ffee00000000000042',
  at: '2026-03-14T09:26:53.589Z',
};

const Counters = z.object({
  available: z.number().int(),
  reserved: z.number().int(),
  committed: z.number().int(),
  received: z.number().int(),
  adjusted: z.number().int(),
});

/** `checkInvariant`'s report of one (product, zone). */
const InvariantReportView = z.object({
  product_id: z.string(),
  zone: z.string(),
  ok: z.boolean(),
  counters: Counters.meta({ description: 'What the stock document says' }),
  from_ledger: Counters.meta({ description: 'The replay of its ledger' }),
  held: Count.meta({ description: 'Units of the open holds on the document' }),
  sales: z
    .object({
      sold: Count,
      applying: Count,
      returning: Count.optional().meta({
        description: 'Units of returned orders not yet put back on this document',
      }),
    })
    .optional()
    .meta({ description: 'Units of committed reservations, and of those not yet applied to the document' }),
  problems: z.array(z.string()),
});

export const LedgerCheckView = z.object({
  ok: z.boolean().meta({ description: 'Every checked document satisfies the invariant' }),
  checked: Count,
  failures: z.array(InvariantReportView),
});

export const ledgerCheckExample = { ok: true, checked: 300, failures: [] };
