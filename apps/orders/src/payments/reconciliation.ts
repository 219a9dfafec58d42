import type { Logger } from 'pino';
import type { Order } from '../orders/order';
import { OrdersRepository } from '../orders/orders.repository';
import type { Saga } from '../saga/saga';
import { SagaService } from '../saga/saga.service';
import { PaymentGateway, PaymentStatus, PaymentUnavailableError } from './payment-gateway';
import type { PaymentMetrics } from './payment.metrics';

/**
 * What a cancelled order's payment still needs, judged from the PSP's own state: an open
 * authorization must be voided, captured money refunded; anything else (voided, refunded,
 * declined, never seen) is consistent. Only orders whose saga believes the money is back are
 * judged: a CANCELLING order whose reversal is still running is the payment worker's business.
 */
export function missingReversal(saga: Saga, psp: PaymentStatus | null): 'VOID' | 'REFUND' | null {
  const settled =
    saga.state === 'CANCELLED' || (saga.state === 'CANCELLING' && saga.payment.reversed !== null);
  if (!settled) return null;
  if (psp === 'authorized') return 'VOID';
  if (psp === 'captured') return 'REFUND';
  return null;
}

export interface ReconciliationSettings {
  /** Orders changed more recently than this are left alone (a step may be in flight). */
  readonly graceMs: number;
  readonly batch: number;
}

export interface ReconciliationPass {
  readonly checked: number;
  readonly mismatches: number;
}

/**
 * The payment reconciliation (issue 16): compares the PSP's state of every cancelled order with
 * the saga, once per order after it rests for the grace period. A consistent order is marked
 * (`payment_reconciled_at`, guarded by its version: a change since the check means it is checked
 * again); a mismatch is logged, counted and fed to the saga as PaymentMismatchFound, which re-arms
 * the missing reversal as a new round. Safe on every instance: the saga input's id names the order
 * and round, so two reconcilers finding the same mismatch make one transition.
 */
export class PaymentReconciler {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly gateway: PaymentGateway,
    private readonly saga: SagaService,
    private readonly settings: ReconciliationSettings,
    private readonly logger: Logger,
    private readonly metrics?: PaymentMetrics,
  ) {}

  async runOnce(now = new Date()): Promise<ReconciliationPass> {
    const due = await this.repo.reconciliationDue(
      new Date(now.getTime() - this.settings.graceMs),
      this.settings.batch,
    );
    let mismatches = 0;
    for (const order of due) if (await this.check(order, now)) mismatches++;
    if (mismatches > 0)
      this.logger.error({ checked: due.length, mismatches }, 'payment reconciliation re-armed reversals');
    return { checked: due.length, mismatches };
  }

  /** True when a mismatch was found. */
  private async check(order: Order, now: Date): Promise<boolean> {
    let psp: PaymentStatus | null;
    try {
      psp = await this.gateway.status(order.id);
    } catch (e) {
      if (!(e instanceof PaymentUnavailableError)) throw e;
      this.metrics?.reconciled.inc({ result: 'unavailable' });
      return false;
    }
    const missing = missingReversal(order.saga, psp);
    if (!missing) {
      const marked = await this.repo.markPaymentReconciled(order.id, order.version, now);
      this.metrics?.reconciled.inc({ result: marked ? 'consistent' : 'moved' });
      return false;
    }
    this.metrics?.reconciled.inc({ result: 'mismatch' });
    this.metrics?.mismatches.inc({ missing, state: order.saga.state });
    this.logger.error(
      {
        order_id: order.id,
        correlation_id: order.correlation_id,
        state: order.saga.state,
        reversed: order.saga.payment.reversed,
        psp_status: psp,
        missing,
      },
      'payment reconciliation: the PSP still holds money of a cancelled order; re-arming the reversal',
    );
    const round = order.saga.payment.round ?? 0;
    await this.saga.apply(
      order.id,
      { type: 'PaymentMismatchFound', id: `reconcile:${order.id}:r${round}`, missing },
      null,
    );
    return true;
  }
}
