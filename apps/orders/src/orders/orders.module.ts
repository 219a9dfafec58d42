import {
  DynamicModule,
  Inject,
  Injectable,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { Db } from 'mongodb';
import type { Logger } from 'pino';
import { OutboxModule, OutboxRelay } from '@mw/messaging';
import { lagTolerantRead, MONGO_DB, shardKeyFields } from '@mw/persistence';
import { LOGGER, Metrics, Periodic } from '@mw/platform';
import { OrdersConfig } from '../config';
import { ORDERS_CONFIG } from '../config.token';
import { PAYMENT_GATEWAY, PaymentGateway } from '../payments/payment-gateway';
import { PaymentWorker } from '../payments/payment.worker';
import { PaymentMetrics } from '../payments/payment.metrics';
import { PaymentReconciler } from '../payments/reconciliation';
import { SimulatedPaymentGateway } from '../payments/simulator/simulated-payment.gateway';
import { DeadlineSweeper, SWEEP_IDLE_FACTOR } from '../saga/deadline-sweeper';
import { ordersCreatedCounter, overdueGraceMs, SagaOverdueMetrics } from '../saga/saga.metrics';
import { SagaMessages } from '../saga/saga-messages';
import { SagaConsumer } from '../saga/saga.consumer';
import { SagaTimeouts } from '../saga/saga';
import { SagaNudges, SagaService } from '../saga/saga.service';
import { LifecycleController } from '../lifecycle/lifecycle.controller';
import { OperationsController } from '../operations/operations.controller';
import { operationsProviders } from '../operations/operations.providers';
import { OrderLifecycle } from '../lifecycle/lifecycle.service';
import { CheckoutService } from './checkout.service';
import { OrdersController } from './orders.controller';
import { ORDERS_COLLECTION, OrdersRepository, REJECTIONS_COLLECTION } from './orders.repository';
import type { Order } from './order';
import { OrdersQueries } from './orders.service';

type Cfg = Readonly<OrdersConfig>;

/**
 * Late-bound nudges: the relay and the payment worker are reached only once the app is
 * bootstrapped (before that, a new payment step waits for the poller).
 */
class Nudges implements SagaNudges {
  relay: OutboxRelay | undefined;
  worker: PaymentWorker | undefined;
  sweeper: Periodic | undefined;
  outbox(): void {
    this.relay?.nudge();
  }
  /** The step runs inline in this process's payment pool. */
  payment(order: Order, claimed?: boolean): void {
    this.worker?.submit(order, claimed);
  }
  /** Claimed in the transition only while this process's worker would take the step (ADR 0012). */
  paymentLease(orderId: string, ahead?: number): number | undefined {
    return this.worker?.leaseFor(orderId, ahead);
  }
  deadline(at: Date): void {
    this.sweeper?.wakeBy(at.getTime());
  }
}

export const sagaTimeouts = (c: Cfg): SagaTimeouts => ({
  stockMs: c.SAGA_STOCK_TIMEOUT_MS,
  paymentMs: c.SAGA_PAYMENT_TIMEOUT_MS,
  commitMs: c.SAGA_COMMIT_TIMEOUT_MS,
  cancelMs: c.SAGA_CANCEL_TIMEOUT_MS,
});

/** Indexes at start-up; the payment worker and the deadline sweeper while the app runs (on every instance). */
@Injectable()
class SagaBackground implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loops: Periodic[] = [];
  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: Cfg,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
    private readonly repo: OrdersRepository,
    private readonly relay: OutboxRelay,
    private readonly nudges: Nudges,
    private readonly worker: PaymentWorker,
    private readonly sweeper: DeadlineSweeper,
    private readonly reconciler: PaymentReconciler,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.repo.ensureIndexes();
    if (this.gateway instanceof SimulatedPaymentGateway) await this.gateway.ensureIndexes();
  }

  onApplicationBootstrap(): void {
    const payments = new Periodic(
      'payment-worker',
      this.config.PAYMENT_POLL_MS,
      () => this.worker.runOnce(),
      this.logger,
      // steps run inline after their transition; the poller only recovers (crashes, backoffs, a full
      // queue), so while it finds nothing it polls less and less often (a full queue kicks it)
      { idleMaxMs: this.config.PAYMENT_POLL_MS * 8 },
    );
    this.nudges.relay = this.relay;
    this.nudges.worker = this.worker;
    this.worker.onRoom = () => payments.kick();
    // sleeps until the earliest saga deadline (read after each pass, and woken by each new one)
    const deadlines = new Periodic(
      'deadline-sweeper',
      this.config.SAGA_SWEEP_INTERVAL_MS,
      () => this.sweeper.sweepAndPlan(),
      this.logger,
      { idleMaxMs: this.config.SAGA_SWEEP_INTERVAL_MS * SWEEP_IDLE_FACTOR },
    );
    this.nudges.sweeper = deadlines;
    this.loops.push(
      payments,
      deadlines,
      new Periodic(
        'payment-reconciliation',
        this.config.PAYMENT_RECONCILE_INTERVAL_MS,
        () => this.reconciler.runOnce(),
        this.logger,
      ),
    );
    for (const l of this.loops) l.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
    await this.worker.stop();
  }
}

/** Orders, the checkout saga (orchestrator) and its payment step. Plain classes wired by factories. */
@Module({})
export class OrdersModule {
  static register(config: Cfg): DynamicModule {
    return {
      module: OrdersModule,
      imports: [
        OutboxModule.forRoot({
          name: 'orders',
          collections: [ORDERS_COLLECTION, REJECTIONS_COLLECTION],
          shardKeys: shardKeyFields('orders', [ORDERS_COLLECTION, REJECTIONS_COLLECTION]),
          pollIntervalMs: config.OUTBOX_POLL_MS,
          gatherMs: config.OUTBOX_GATHER_MS,
          progress: config.OUTBOX_PROGRESS,
        }),
      ],
      controllers: [
        OrdersController,
        LifecycleController,
        OperationsController,
      ],
      providers: [
        Nudges,
        { provide: OrdersRepository, useFactory: (db: Db) => new OrdersRepository(db), inject: [MONGO_DB] },
        {
          provide: SagaMessages,
          useValue: new SagaMessages(
            { inventoryCommands: config.INVENTORY_COMMANDS_TOPIC, orderEvents: config.ORDERS_EVENTS_TOPIC },
            config.STOCK_HOLD_SECONDS,
          ),
        },
        {
          provide: SagaService,
          useFactory: (r: OrdersRepository, m: SagaMessages, n: Nudges, log: Logger) =>
            new SagaService(r, m, sagaTimeouts(config), n, log),
          inject: [OrdersRepository, SagaMessages, Nudges, LOGGER],
        },
        {
          provide: CheckoutService,
          useFactory: (r: OrdersRepository, m: SagaMessages, n: Nudges, log: Logger, metrics: Metrics) =>
            new CheckoutService(r, m, config.ZONES, sagaTimeouts(config), n, log, ordersCreatedCounter(metrics.registry)),
          inject: [OrdersRepository, SagaMessages, Nudges, LOGGER, Metrics],
        },
        {
          provide: OrderLifecycle,
          useFactory: (r: OrdersRepository, s: SagaService) => new OrderLifecycle(r, s),
          inject: [OrdersRepository, SagaService],
        },
        {
          provide: OrdersQueries,
          useFactory: (r: OrdersRepository) =>
            new OrdersQueries(
              r,
              lagTolerantRead(
                config.ORDER_HISTORY_READ_PREFERENCE,
                config.ORDER_HISTORY_MAX_STALENESS_SECONDS,
              ),
            ),
          inject: [OrdersRepository],
        },
        {
          provide: PAYMENT_GATEWAY,
          useFactory: (db: Db, log: Logger): PaymentGateway =>
            new SimulatedPaymentGateway(
              db,
              {
                declineAmountFrom: config.PAYMENT_SIM_DECLINE_AMOUNT_FROM ?? null,
                declineTokens: config.PAYMENT_SIM_DECLINE_TOKENS,
                declineUsers: config.PAYMENT_SIM_DECLINE_USERS,
                hangUsers: config.PAYMENT_SIM_HANG_USERS,
                lateCaptureUsers: config.PAYMENT_SIM_LATE_CAPTURE_USERS,
                latencyMinMs: config.PAYMENT_SIM_LATENCY_MIN_MS,
                latencyMaxMs: config.PAYMENT_SIM_LATENCY_MAX_MS,
                transientErrorRate: config.PAYMENT_SIM_TRANSIENT_ERROR_RATE,
                timeoutRate: config.PAYMENT_SIM_TIMEOUT_RATE,
              },
              log,
            ),
          inject: [MONGO_DB, LOGGER],
        },
        {
          provide: PaymentMetrics,
          useFactory: (m: Metrics) => new PaymentMetrics(m.registry),
          inject: [Metrics],
        },
        {
          provide: PaymentWorker,
          useFactory: (r: OrdersRepository, g: PaymentGateway, s: SagaService, log: Logger, m: PaymentMetrics) =>
            new PaymentWorker(
              r,
              g,
              s,
              {
                concurrency: config.PAYMENT_CONCURRENCY,
                leaseMs: config.PAYMENT_LEASE_MS,
                retryBaseMs: config.PAYMENT_RETRY_BASE_MS,
                retryMaxMs: config.PAYMENT_RETRY_MAX_MS,
                callTimeoutMs: config.PAYMENT_CALL_TIMEOUT_MS,
                defaultCardToken: config.PAYMENT_DEFAULT_CARD_TOKEN,
              },
              log,
              m,
            ),
          inject: [OrdersRepository, PAYMENT_GATEWAY, SagaService, LOGGER, PaymentMetrics],
        },
        {
          provide: PaymentReconciler,
          useFactory: (r: OrdersRepository, g: PaymentGateway, s: SagaService, log: Logger, m: PaymentMetrics) =>
            new PaymentReconciler(
              r,
              g,
              s,
              { graceMs: config.PAYMENT_RECONCILE_GRACE_MS, batch: 100 },
              log,
              m,
            ),
          inject: [OrdersRepository, PAYMENT_GATEWAY, SagaService, LOGGER, PaymentMetrics],
        },
        {
          provide: SagaOverdueMetrics,
          useFactory: (m: Metrics, r: OrdersRepository) =>
            new SagaOverdueMetrics(m.registry, r, overdueGraceMs(config.SAGA_SWEEP_INTERVAL_MS)),
          inject: [Metrics, OrdersRepository],
        },
        ...operationsProviders(config),
        {
          provide: DeadlineSweeper,
          useFactory: (r: OrdersRepository, s: SagaService, log: Logger) => new DeadlineSweeper(r, s, log),
          inject: [OrdersRepository, SagaService, LOGGER],
        },
        SagaBackground,
        SagaConsumer,
      ],
    };
  }
}
