import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit, Provider } from '@nestjs/common';
import { Db } from 'mongodb';
import type { Logger } from 'pino';
import { ConsumerRunner, KafkaPublisher, OutboxRelay } from '@mw/messaging';
import { MONGO_DB } from '@mw/persistence';
import { LOGGER, Metrics, Periodic } from '@mw/platform';
import { InventoryConfig } from './config';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { InventoryEvents } from './outbox/inventory-events';
import { OutboxNudge } from './outbox/outbox.service';
import { CommandsHandler } from './reservations/commands.handler';
import { ReserveLimits } from './reservations/reservation';
import { RESERVATIONS, ReservationsRepository } from './reservations/reservations.repository';
import { ReservationsService } from './reservations/reservations.service';
import { UnbackedReturns } from './reservations/unbacked-returns';
import { StockPass } from './stock/stock-pass';
import { stockPump } from './stock/stock-pump';
import { STOCK, StockRepository } from './stock/stock.repository';
import { StockService } from './stock/stock.service';
import { Sweeper } from './sweeper/sweeper';

export const INVENTORY_CONFIG = Symbol('INVENTORY_CONFIG');
export const RESERVE_LIMITS = Symbol('RESERVE_LIMITS');

type Cfg = Readonly<InventoryConfig>;

/** While no hold is near its expiry, the sweeper waits up to this many sweep intervals (16 s by default). */
const SWEEP_IDLE_FACTOR = 16;

/**
 * Plain classes (domain services, repositories) wired with factories: the classes stay free of
 * Nest, and scripts/benchmarks can build them directly (no decorator metadata needed).
 */
export function inventoryProviders(config: Cfg): Provider[] {
  return [
    { provide: INVENTORY_CONFIG, useValue: config },
    { provide: RESERVE_LIMITS, useValue: reserveLimits(config) },
    { provide: StockRepository, useFactory: (db: Db) => new StockRepository(db, config.INVENTORY_SETTLED_KEEP), inject: [MONGO_DB] },
    { provide: ReservationsRepository, useFactory: (db: Db) => new ReservationsRepository(db), inject: [MONGO_DB] },
    { provide: LedgerRepository, useFactory: (db: Db) => new LedgerRepository(db), inject: [MONGO_DB] },
    { provide: InventoryEvents, useValue: new InventoryEvents(config.INVENTORY_EVENTS_TOPIC) },
    { provide: OutboxNudge, useValue: new OutboxNudge() },
    {
      provide: ReservationsService,
      useFactory: (
        r: ReservationsRepository,
        s: StockRepository,
        e: InventoryEvents,
        o: OutboxNudge,
        l: ReserveLimits,
        log: Logger,
        m: Metrics,
      ) => new ReservationsService(r, s, e, o, l, log, UnbackedReturns.withRegistry(log, m.registry), config.INVENTORY_GROUP_COMMIT),
      inject: [ReservationsRepository, StockRepository, InventoryEvents, OutboxNudge, RESERVE_LIMITS, LOGGER, Metrics],
    },
    {
      provide: CommandsHandler,
      useFactory: (runner: ConsumerRunner, s: ReservationsService, l: ReserveLimits, log: Logger) => new CommandsHandler(runner, s, l, log),
      inject: [ConsumerRunner, ReservationsService, RESERVE_LIMITS, LOGGER],
    },
    {
      provide: StockService,
      useFactory: (s: StockRepository, o: OutboxNudge, log: Logger) => new StockService(s, o, config, log),
      inject: [StockRepository, OutboxNudge, LOGGER],
    },
    {
      provide: LedgerService,
      useFactory: (db: Db, l: LedgerRepository, r: ReservationsRepository) => new LedgerService(db, l, r),
      inject: [MONGO_DB, LedgerRepository, ReservationsRepository],
    },
    {
      provide: Sweeper,
      useFactory: (r: ReservationsRepository, s: StockRepository, svc: ReservationsService, log: Logger) =>
        new Sweeper(r, s, svc, config.INVENTORY_STALE_AFTER_MS, log),
      inject: [ReservationsRepository, StockRepository, ReservationsService, LOGGER],
    },
    {
      provide: StockPass,
      useFactory: (s: StockRepository, l: LedgerRepository, e: InventoryEvents, p: KafkaPublisher) => new StockPass(s, l, e, p),
      inject: [StockRepository, LedgerRepository, InventoryEvents, KafkaPublisher],
    },
    InventoryBackground,
  ];
}

export const reserveLimits = (config: Cfg): ReserveLimits => ({
  zones: config.ZONES,
  maxLines: config.INVENTORY_MAX_LINES,
  maxHoldSeconds: config.INVENTORY_MAX_HOLD_SECONDS,
  maxQtyPerLine: config.INVENTORY_MAX_QTY_PER_LINE,
});

/** Indexes at startup; outbox relay, stock pass (levels and ledger) and sweeper while the app runs. */
@Injectable()
export class InventoryBackground implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private relay: OutboxRelay | undefined;
  private readonly loops: Periodic[] = [];

  constructor(
    @Inject(MONGO_DB) private readonly db: Db,
    @Inject(INVENTORY_CONFIG) private readonly config: Cfg,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly publisher: KafkaPublisher,
    private readonly metrics: Metrics,
    private readonly nudge: OutboxNudge,
    private readonly stock: StockRepository,
    private readonly reservations: ReservationsRepository,
    private readonly ledger: LedgerRepository,
    private readonly stockPass: StockPass,
    private readonly sweeper: Sweeper,
    private readonly service: ReservationsService,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.stock.ensureIndexes();
    await this.reservations.ensureIndexes();
    await this.ledger.ensureIndexes();
    await OutboxRelay.ensureIndexes(this.db, [STOCK, RESERVATIONS]);
  }

  onApplicationBootstrap(): void {
    this.relay = new OutboxRelay({
      db: this.db,
      collections: [RESERVATIONS, STOCK],
      publisher: this.publisher,
      logger: this.logger,
      name: 'inventory',
      pollIntervalMs: this.config.OUTBOX_POLL_MS,
      gatherMs: this.config.OUTBOX_GATHER_MS,
      progress: this.config.OUTBOX_PROGRESS,
      registry: this.metrics.registry,
    });
    this.nudge.attach(this.relay);
    this.relay.start();
    const c = this.config;
    // sleeps until the earliest hold expiry (read after each pass, and woken by each new one)
    const sweeps = new Periodic('sweeper', c.INVENTORY_SWEEP_INTERVAL_MS, () => this.sweeper.sweepAndPlan(), this.logger, {
      idleMaxMs: c.INVENTORY_SWEEP_INTERVAL_MS * SWEEP_IDLE_FACTOR,
    });
    this.service.onExpirySet = (at) => sweeps.wakeBy(at.getTime());
    this.loops.push(
      stockPump('stock-pass', c.INVENTORY_PUMP_INTERVAL_MS, () => this.runStockPass(), this.stock.activity, this.logger),
      sweeps,
    );
    for (const loop of this.loops) loop.start();
  }

  /** One stock pass (levels published, ledger entries moved). Answers the work it found (0: idle). */
  private async runStockPass(): Promise<number> {
    const { dirty, copied } = await this.stockPass.runOnce();
    return dirty + copied;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.loops.map((l) => l.stop()));
    await this.relay?.stop();
  }
}
