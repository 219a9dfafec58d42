import { Counter, Registry } from 'prom-client';

/** Payments on /metrics: contradicting PSP answers and what the reconciliation checked and found. */
export class PaymentMetrics {
  readonly contradictions: Counter<'step'>;
  readonly reconciled: Counter<'result'>;
  readonly mismatches: Counter<'missing' | 'state'>;

  constructor(registry: Registry) {
    this.contradictions = new Counter({
      name: 'orders_payment_reversal_contradictions_total',
      help: 'Reversal rounds whose two PSP answers contradicted each other (a new round with new keys followed)',
      labelNames: ['step'],
      registers: [registry],
    });
    this.reconciled = new Counter({
      name: 'orders_payment_reconciliation_checked_total',
      help: 'Cancelled orders compared with the PSP, by result (consistent, mismatch, moved, unavailable)',
      labelNames: ['result'],
      registers: [registry],
    });
    this.mismatches = new Counter({
      name: 'orders_payment_reconciliation_mismatches_total',
      help: 'Cancelled orders whose money the PSP still held; the missing reversal was re-armed',
      labelNames: ['missing', 'state'],
      registers: [registry],
    });
  }
}
