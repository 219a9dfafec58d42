import type { Logger } from 'pino';
import { addSpanEvent, boundToActive, contextFromTraceparent, GroupCommit, inSpan } from '@mw/platform';
import { Order } from '../orders/order';
import { OrdersRepository } from '../orders/orders.repository';
import type { SagaInput } from '../saga/saga';
import { ApplyOutcome, SagaService } from '../saga/saga.service';
import { PaymentGateway, PaymentUnavailableError } from './payment-gateway';
import { performPaymentStep } from './payment-step';
import type { PaymentMetrics } from './payment.metrics';

/** A payment step's outcome waiting for its transition, with the order as the step's claim left it. */
interface OutcomeToApply {
  readonly orderId: string;
  readonly input: SagaInput;
  readonly causation: null;
  readonly loaded: Order;
  readonly inTrace: <T>(fn: () => T) => T;
}

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
 * step (one claimer wins, lease = next_at), calls the gateway with the order's idempotency key and
 * feeds the outcome back to the saga as a guarded transition. A transient failure is retried with
 * exponential backoff (persisted next_at), always with the same key; a crash leaves the step due
 * again after the lease. The saga's deadline bounds the retries.
 *
 * A pool of `concurrency` slots without a group barrier: a finished step frees its slot at once for
 * the next queued one. Steps arrive two ways, both through {@link submit}: inline, from the saga
 * right after the transition that created the step was written (no poll tick on a checkout's path),
 * and from the poller ({@link runOnce}), which finds what no inline run took — a step whose run
 * died with its process (lease expired), one left waiting when the queue was full, a retry after
 * its backoff. Both claim the step with the same conditional write, so it runs once.
 */
export class PaymentWorker {
  /** Order ids waiting for a slot, oldest first. */
  private readonly queue: string[] = [];
  /** The newest order known for each queued or running id: what a queued id runs, what a running one continues with. */
  private readonly latest = new Map<string, Order>();
  private readonly running = new Set<string>();
  /** Steps this process claimed in the transition that armed them: order id → the version that transition wrote (its lease ends at that version's `next_at`). */
  private readonly claims = new Map<string, number>();
  private readonly slots = new Set<Promise<void>>();
  private stopped = false;
  /** A step was refused for a full queue: ask the poller for it once there is room again. */
  private refused = false;
  /** Called when room frees after a refusal (the app kicks the poller). */
  onRoom: (() => void) | undefined;
  /**
   * The outcomes of steps that finish while an earlier outcome is being written go together: one
   * read-free bulkWrite of their version-guarded transitions (`SagaService.applyMany` with the
   * orders as claimed), each in its own step's trace; a lone outcome is written at once. A guard
   * lost to another writer takes the single path, as for a consumed batch (ADR 0015 §1).
   */
  private readonly outcomes = new GroupCommit<OutcomeToApply, ApplyOutcome>((items) =>
    this.saga.applyMany(items, (j, fn) => (items[j] ? items[j].inTrace(fn) : fn())),
  );

  constructor(
    private readonly repo: OrdersRepository,
    private readonly gateway: PaymentGateway,
    private readonly saga: SagaService,
    private readonly settings: PaymentWorkerSettings,
    private readonly logger: Logger,
    private readonly metrics?: PaymentMetrics,
  ) {}

  /** How many steps may wait for a slot; beyond it a step stays (durably due) for the poller. */
  private get queueLimit(): number {
    return this.settings.concurrency * 4;
  }

  /**
   * Runs the order's payment step soon: in a free slot now, else after the steps queued before it.
   * The same order again while it waits or runs only updates what it runs next (never twice at
   * once in this process). False when it was not taken (no step, stopped, queue full).
   */
  submit(order: Order, claimed = false): boolean {
    if (claimed) this.claims.set(order.id, order.version);
    if (this.stopped || !order.saga.payment.step) return this.refuse(order, claimed);
    const known = this.latest.get(order.id);
    if (this.running.has(order.id) || known) {
      if (!known || order.version > known.version) this.latest.set(order.id, order);
      return true;
    }
    if (this.queue.length >= this.queueLimit) {
      this.refused = true;
      return this.refuse(order, claimed);
    }
    this.latest.set(order.id, order);
    this.queue.push(order.id);
    this.fill();
    return true;
  }

  /**
   * The lease with which a transition may claim the step it arms for this worker (SagaNudges
   * paymentLease): while running and when the step would be taken (its order already here, or
   * room in the queue past the `ahead` steps a batch's write claims before this one). Undefined
   * otherwise: the step stays due for any claimer.
   */
  leaseFor(orderId: string, ahead = 0): number | undefined {
    if (this.stopped) return undefined;
    const free = Math.max(0, this.settings.concurrency - this.slots.size); // a submit runs at once while a slot is free
    const taken =
      this.running.has(orderId) ||
      this.latest.has(orderId) ||
      this.queue.length + ahead < this.queueLimit + free;
    return taken ? this.settings.leaseMs : undefined;
  }

  /**
   * A step not taken. One its transition claimed for this process (the queue filled between the
   * lease and the write, or the worker stopped) is handed back at once: due now, for the poller of
   * any instance, instead of after the lease.
   */
  private refuse(order: Order, claimed: boolean): false {
    if (claimed) {
      this.claims.delete(order.id);
      void this.handBack(order);
    }
    return false;
  }

  private async handBack(order: Order): Promise<void> {
    const step = order.saga.payment.step;
    if (!step) return;
    await this.repo
      .deferPaymentStep(order.id, order.version, step, new Date())
      .catch((e: unknown) =>
        this.logger.warn(
          { order_id: order.id, step, err: (e as Error).message },
          'claimed payment step not handed back; it is due after its lease',
        ),
      );
  }

  /** The poller: submits the steps due now that no inline run took; answers how many it submitted. */
  async runOnce(now = new Date()): Promise<number> {
    const room = this.queueLimit - this.queue.length;
    if (this.stopped || room <= 0) return 0;
    // the steps this process already holds may still look due (queued, or claimed a moment later): read past them
    const due = await this.repo.paymentDue(now, room + this.queue.length + this.running.size);
    const fresh = due.filter((o) => !this.running.has(o.id) && !this.latest.has(o.id)).slice(0, room);
    return fresh.filter((o) => this.submit(o)).length;
  }

  /** Resolves when no step runs or waits (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.slots.size > 0) await Promise.all([...this.slots]);
  }

  /** Takes no new step and waits for the running ones; queued ones stay due for the poller. */
  async stop(): Promise<void> {
    this.stopped = true;
    const handBacks: Promise<void>[] = [];
    for (const id of this.queue.splice(0)) {
      const order = this.latest.get(id);
      this.latest.delete(id);
      // a queued step its transition claimed here: due now for another instance, not after the lease
      if (order && this.claims.get(id) === order.version) handBacks.push(this.handBack(order));
    }
    this.claims.clear();
    await Promise.all([this.idle(), ...handBacks]);
  }

  private fill(): void {
    while (this.slots.size < this.settings.concurrency && this.queue.length > 0) {
      const id = this.queue.shift();
      if (id === undefined) return;
      const slot = this.slot(id).finally(() => {
        this.slots.delete(slot);
        this.fill();
        if (this.refused && this.queue.length < this.queueLimit) {
          this.refused = false;
          this.onRoom?.();
        }
      });
      this.slots.add(slot);
    }
  }

  /** One slot: the order's step, then its next step if a newer version of the order arrived meanwhile. */
  private async slot(id: string): Promise<void> {
    let order = this.latest.get(id);
    this.latest.delete(id);
    this.running.add(id);
    try {
      while (order && !this.stopped) {
        await this.perform(order).catch((e: unknown) =>
          this.logger.warn(
            { order_id: id, step: order?.saga.payment.step, err: (e as Error).message },
            'payment step failed; the poller retries it after its lease',
          ),
        );
        const next = this.latest.get(id);
        this.latest.delete(id);
        order = next && next.version > order.version ? next : undefined;
      }
    } finally {
      this.running.delete(id);
    }
  }

  /** The step in the checkout's trace (ADR 0014), whichever way it arrived: a slot runs steps of many orders. */
  private perform(candidate: Order): Promise<void> {
    const step = candidate.saga.payment.step;
    if (!step) return Promise.resolve();
    return inSpan(
      `payment ${step}`,
      {
        parent: contextFromTraceparent(candidate.traceparent),
        attributes: { 'mw.order_id': candidate.id, 'mw.payment.step': step },
      },
      () => this.performStep(candidate, step),
    );
  }

  private async performStep(
    candidate: Order,
    step: NonNullable<Order['saga']['payment']['step']>,
  ): Promise<void> {
    const order = this.claimedByTransition(candidate)
      ? candidate
      : await this.repo.claimPaymentStep(candidate, step, new Date(), this.settings.leaseMs);
    if (!order) return; // someone else holds or moved the step
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
      addSpanEvent('payment.outcome', { step, outcome: input.type });
      await this.outcomes.add({
        orderId: order.id,
        input,
        causation: null,
        loaded: order,
        inTrace: boundToActive(),
      });
    } catch (e) {
      if (!(e instanceof PaymentUnavailableError)) throw e;
      addSpanEvent('payment.transient_failure', { step, code: e.code });
      const attempts = order.saga.payment.attempts; // counted by the claim
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
    }
  }

  /**
   * The candidate is the order as the transition that claimed its step wrote it, and at least half
   * the lease is left for the calls (a step that waited longer in the queue is claimed again, which
   * finds it still leased and leaves it to the poller after the lease, as after a crash).
   */
  private claimedByTransition(candidate: Order): boolean {
    const version = this.claims.get(candidate.id);
    if (version === undefined || candidate.version < version) return false;
    this.claims.delete(candidate.id); // used now, or outdated by a newer version of the order
    const until = candidate.saga.payment.next_at?.getTime() ?? 0;
    return version === candidate.version && Date.now() <= until - this.settings.leaseMs / 2;
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
