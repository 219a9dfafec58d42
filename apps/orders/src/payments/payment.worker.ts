import type { Logger } from 'pino';
import { Order } from '../orders/order';
import { OrdersRepository } from '../orders/orders.repository';
import { SagaService } from '../saga/saga.service';
import { PaymentGateway, PaymentUnavailableError } from './payment-gateway';
import { performPaymentStep } from './payment-step';
import type { PaymentMetrics } from './payment.metrics';

export interface PaymentWorkerSettings {
  readonly concurrency: number;
  readonly leaseMs: number;
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly callTimeoutMs: number;
  readonly defaultCardToken: string;
}

/**
 * Performs the payment step the saga persisted on an order (intent first, call second): claims the
 * step (one instance wins, lease = next_at), calls the gateway with the order's idempotency key and
 * feeds the outcome back to the saga as a guarded transition. A transient failure is retried with
 * exponential backoff (persisted next_at), always with the same key; a crash leaves the step due
 * again after the lease. The saga's deadline bounds the retries.
 */
export class PaymentWorker {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly gateway: PaymentGateway,
    private readonly saga: SagaService,
    private readonly settings: PaymentWorkerSettings,
    private readonly logger: Logger,
    private readonly metrics?: PaymentMetrics,
  ) {}

  async runOnce(now = new Date()): Promise<number> {
    const due = await this.repo.paymentDue(now, this.settings.concurrency * 4);
    let done = 0;
    for (let i = 0; i < due.length; i += this.settings.concurrency) {
      const results = await Promise.all(
        due.slice(i, i + this.settings.concurrency).map((o) => this.perform(o)),
      );
      done += results.filter(Boolean).length;
    }
    return done;
  }

  private async perform(order: Order): Promise<boolean> {
    const step = order.saga.payment.step;
    if (!step) return false;
    if (!(await this.repo.claimPaymentStep(order.id, order.version, step, new Date(), this.settings.leaseMs)))
      return false;
    try {
      const input = await performPaymentStep(
        this.gateway,
        {
          orderId: order.id,
          amount: order.total,
          userId: order.user_id,
          cardToken: this.settings.defaultCardToken,
        },
        step,
        order.saga.payment.round ?? 0,
        (call) => this.timed(call),
      );
      if (input.type === 'PaymentReversalContradicted') {
        this.metrics?.contradictions.inc({ step });
        this.logger.warn(
          {
            order_id: order.id,
            correlation_id: order.correlation_id,
            step,
            round: input.round,
            next: input.next,
          },
          'payment reversal answers contradict each other (a capture landed between the calls); next round with new keys',
        );
      }
      await this.saga.apply(order.id, input, null);
      return true;
    } catch (e) {
      if (!(e instanceof PaymentUnavailableError)) throw e;
      const attempts = order.saga.payment.attempts + 1;
      const backoff = Math.min(this.settings.retryMaxMs, this.settings.retryBaseMs * 2 ** (attempts - 1));
      this.logger.warn(
        {
          order_id: order.id,
          correlation_id: order.correlation_id,
          step,
          attempts,
          backoff_ms: backoff,
          code: e.code,
        },
        'payment call failed transiently; will retry',
      );
      await this.repo.deferPaymentStep(order.id, order.version, step, new Date(Date.now() + backoff));
      return false;
    }
  }

  /** A call that takes longer than the timeout is a transient failure; its late result is dropped (the key makes a retry safe). */
  private timed<T>(call: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new PaymentUnavailableError(
              'PAYMENTS.PSP_TIMEOUT',
              `payment call exceeded ${this.settings.callTimeoutMs} ms`,
            ),
          ),
        this.settings.callTimeoutMs,
      );
    });
    call.catch(() => undefined);
    return Promise.race([call, timeout]).finally(() => clearTimeout(timer));
  }
}
