import type { Logger } from 'pino';
import { addSpanEvent, AppError } from '@mw/platform';
import { OrdersRepository } from '../orders/orders.repository';
import type { Order } from '../orders/order';
import { ActionInput, actorOf, decide, Decision, Saga, SagaInput, SagaTimeouts, statusOf } from './saga';
import type { OutgoingMessage } from '@mw/contracts';
import { SagaMessages } from './saga-messages';

export type ApplyOutcome = 'applied' | 'ignored' | 'unknown-order';

/** A decided transition on its way to the database. */
interface Planned {
  readonly order: Order;
  readonly input: SagaInput;
  readonly d: Extract<Decision, { kind: 'apply' }>;
  /** The saga as written: `d.saga` with its armed step claimed when `claimed`. */
  readonly saga: Saga;
  readonly claimed: boolean;
  readonly messages: readonly OutgoingMessage[];
}

/** What an HTTP action did: the order after it (unchanged when the action was a repeat). */
export type ActionOutcome =
  { readonly outcome: 'applied' | 'ignored'; readonly order: Order } | { readonly outcome: 'unknown-order' };

/**
 * Where the service asks background work to run soon: the relay after an outbox write; the payment
 * worker with the order just written whose transition created (or kept) a payment step, so the step
 * runs inline, without waiting for a poll.
 */
export interface SagaNudges {
  outbox(): void;
  /** `claimed`: the transition that wrote `order` also claimed its step for this process (see paymentLease). */
  payment(order: Order, claimed?: boolean): void;
  /**
   * Before a transition that arms a payment step is written: the lease (ms) with which that write
   * may claim the step for this process's worker, so the inline run needs no claim of its own;
   * undefined when the step should stay due for any claimer (no worker here, or its queue is full).
   * `ahead`: steps the same write (a batch) claims before this one, not submitted yet.
   */
  paymentLease?(orderId: string, ahead?: number): number | undefined;
  /** A transition set a deadline: the deadline sweeper must run by then (it sleeps until its earliest known one). */
  deadline?(at: Date): void;
}

/**
 * Drives one order's saga: load (primary), decide (pure), write the transition and its messages
 * with one conditional update. A lost race (another instance, the sweeper, the payment worker)
 * reloads and decides again; a repeated input is a no-op because its cause is in the history.
 */
export class SagaService {
  constructor(
    private readonly repo: OrdersRepository,
    private readonly messages: SagaMessages,
    private readonly timeouts: SagaTimeouts,
    private readonly nudges: SagaNudges,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /**
   * `causation`: id of the message that caused the input (null for deadlines and payment outcomes).
   * `loaded`: the order as the caller just read or claimed it (primary), used instead of a first
   * load; the transition's version guard makes a stale one a lost race that reloads.
   */
  async apply(
    orderId: string,
    input: SagaInput,
    causation: string | null,
    loaded?: Order,
  ): Promise<ApplyOutcome> {
    return (await this.run(orderId, input, causation, loaded)).outcome;
  }

  /**
   * An HTTP action (cancel, delivery started, delivered) on an order the caller may act on. A
   * refusal by the state machine is a 409 with its code; a repeat answers the order as it is.
   */
  async act(orderId: string, input: ActionInput): Promise<ActionOutcome> {
    return this.run(orderId, input, null);
  }

  private async run(
    orderId: string,
    input: SagaInput,
    causation: string | null,
    loaded?: Order,
  ): Promise<ActionOutcome> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const order = attempt === 0 && loaded?.id === orderId ? loaded : await this.repo.findById(orderId);
      if (!order) {
        this.logger.warn({ order_id: orderId, input: input.type }, 'saga input for an unknown order ignored');
        return { outcome: 'unknown-order' };
      }
      const now = this.clock();
      const d = decide(order.saga, input, now, this.timeouts);
      if (d.kind === 'refuse') {
        addSpanEvent('saga.refused', { order_id: orderId, state: order.saga.state, input: input.type, code: d.code });
        this.logger.info(
          {
            order_id: orderId,
            correlation_id: order.correlation_id,
            state: order.saga.state,
            input: input.type,
            by: actorOf(input),
            code: d.code,
          },
          'order action refused',
        );
        throw AppError.conflict(d.code, d.message);
      }
      if (d.kind === 'ignore') {
        this.ignored(order, input, d.why);
        return { outcome: 'ignored', order };
      }
      const t = this.plan(order, input, d, causation, now);
      if (await this.repo.transition(order, t.saga, t.messages, now)) {
        return { outcome: 'applied', order: this.written(t, now) };
      }
    }
    throw new AppError(
      'ORDERS.CONCURRENT_UPDATE',
      'unavailable',
      `order ${orderId} kept changing while applying ${input.type}; retrying`,
    );
  }

  /**
   * Group commit of saga inputs (ADR 0012 §4): the inputs of a consumed batch, in their order, with
   * one read of their orders and one bulkWrite of their transitions, each guarded by its order's
   * version as on the single path. What the batch cannot settle takes the single path
   * ({@link apply}) afterwards, in the batch's order: a guard lost to another writer (it reloads
   * and decides again), an input refused, and every input after the first of an order with several
   * in the batch (an order's inputs apply in their order). `within(j, fn)` runs `fn` as the work of
   * the j-th input (its trace: the messages it emits continue it).
   */
  async applyMany(
    items: readonly {
      readonly orderId: string;
      readonly input: SagaInput;
      readonly causation: string | null;
      /** The order as the caller just read or wrote it (the payment worker's): not read again; a stale one loses its guard and takes the single path. */
      readonly loaded?: Order;
    }[],
    within: <R>(j: number, fn: () => R) => R = (_, fn) => fn(),
  ): Promise<ApplyOutcome[]> {
    const outcomes: ApplyOutcome[] = [];
    const firstOf = new Map<string, number>();
    const alone = new Set<number>();
    for (const [j, it] of items.entries()) {
      if (firstOf.has(it.orderId)) alone.add(j);
      else firstOf.set(it.orderId, j);
    }
    const orders = new Map<string, Order>();
    const toRead: string[] = [];
    for (const [orderId, j] of firstOf) {
      const loaded = items[j]?.loaded;
      if (loaded?.id === orderId) orders.set(orderId, loaded);
      else toRead.push(orderId);
    }
    if (toRead.length > 0) for (const [id, o] of await this.repo.findByIds(toRead)) orders.set(id, o);
    const now = this.clock();
    const planned: { j: number; t: Planned }[] = [];
    let claims = 0; // steps this batch claims: the worker's room is counted past them
    for (const [orderId, j] of firstOf) {
      const it = items[j];
      if (!it) continue;
      const { input, causation } = it;
      const order = orders.get(orderId);
      if (!order) {
        alone.add(j); // the single path says it is unknown (or finds it, inserted meanwhile)
        continue;
      }
      within(j, () => {
        const d = decide(order.saga, input, now, this.timeouts);
        if (d.kind === 'refuse') alone.add(j);
        else if (d.kind === 'ignore') {
          this.ignored(order, input, d.why);
          outcomes[j] = 'ignored';
        } else {
          const t = this.plan(order, input, d, causation, now, claims);
          if (t.claimed) claims++;
          planned.push({ j, t });
        }
      });
    }
    const written = await this.repo.transitionMany(planned.map(({ t }) => ({ order: t.order, saga: t.saga, messages: t.messages })), now);
    for (const [k, { j, t }] of planned.entries()) {
      if (!written[k]) {
        alone.add(j); // lost its guard: nothing was written (nor claimed); the single path reloads
        continue;
      }
      within(j, () => this.written(t, now));
      outcomes[j] = 'applied';
    }
    for (const j of [...alone].sort((a, b) => a - b)) {
      const it = items[j];
      if (it) outcomes[j] = await within(j, () => this.apply(it.orderId, it.input, it.causation));
    }
    return outcomes;
  }

  private ignored(order: Order, input: SagaInput, why: string): void {
    addSpanEvent('saga.ignored', { order_id: order.id, state: order.saga.state, input: input.type, why });
    this.logger.info(
      { order_id: order.id, state: order.saga.state, input: input.type, cause: input.id, by: actorOf(input), why },
      'saga input ignored',
    );
  }

  /** The write a decided transition needs: its messages and the saga as stored (its armed step claimed when this process's worker will run it). */
  private plan(order: Order, input: SagaInput, d: Extract<Decision, { kind: 'apply' }>, causation: string | null, now: Date, ahead = 0): Planned {
    const messages = this.messages.forCommands(order, d.commands, causation, now);
    const { saga, claimed } = this.claimArmedStep(order.id, d.saga, now, ahead);
    return { order, input, d, saga, claimed, messages };
  }

  /** After the majority-acknowledged write: log it, the order as written, and the nudges it calls for. */
  private written(t: Planned, now: Date): Order {
    const { order, input, d, saga, claimed, messages } = t;
    // the transition as an event of the span that caused it (ADR 0014)
    addSpanEvent('saga.transition', { order_id: order.id, from: order.saga.state, to: d.saga.state, input: input.type, emitted: d.commands.map((c) => c.type) });
    this.logger.info(
      {
        order_id: order.id,
        correlation_id: order.correlation_id,
        from: order.saga.state,
        to: d.saga.state,
        input: input.type,
        cause: input.id,
        by: actorOf(input),
        reason: d.saga.reason,
        emitted: d.commands.map((c) => c.type),
      },
      'saga transition',
    );
    const written: Order = { ...order, saga, status: statusOf(saga.state), updated_at: now, version: order.version + 1 };
    if (messages.length > 0) this.nudges.outbox();
    if (saga.deadline) this.nudges.deadline?.(saga.deadline);
    if (saga.payment.step) this.nudges.payment(written, claimed);
    return written;
  }

  /**
   * A step armed by this transition (decide sets it due now, no attempt yet) is claimed in the same
   * write when this process's worker will run it: next_at moves a lease ahead and the attempt is
   * counted, exactly what `claimPaymentStep` would write a moment later (ADR 0012 "Claimed by the
   * transition"). A crash before the run leaves the step due after the lease, as after any claim.
   */
  private claimArmedStep(orderId: string, saga: Saga, now: Date, ahead: number): { saga: Saga; claimed: boolean } {
    const p = saga.payment;
    if (!p.step || p.attempts !== 0 || p.next_at?.getTime() !== now.getTime()) return { saga, claimed: false };
    const lease = this.nudges.paymentLease?.(orderId, ahead);
    if (lease === undefined) return { saga, claimed: false };
    return { saga: { ...saga, payment: { ...p, next_at: new Date(now.getTime() + lease), attempts: 1 } }, claimed: true };
  }
}
