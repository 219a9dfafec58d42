import { DynamicModule, Injectable, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Db } from 'mongodb';
import type { Logger } from 'pino';
import { MONGO_DB } from '@mw/persistence';
import { LOGGER, Metrics } from '@mw/platform';
import { KafkaPublisher } from '../publisher/publisher';
import { OutboxRelay } from './outbox-relay';
import type { RelayProgressMode } from './outbox-stream';

const RELAY_OPTIONS = Symbol('RELAY_OPTIONS');

interface RelayModuleOptions {
  readonly name: string;
  readonly collections: readonly string[];
  /** Shard-key fields per collection (OutboxRelay `shardKeys`). */
  readonly shardKeys?: Readonly<Record<string, readonly string[]>>;
  readonly pollIntervalMs?: number;
  readonly gatherMs?: number;
  /** How the relay records what it sent (OutboxRelay `progress`, ADR 0015 §2; default 'pull'). */
  readonly progress?: RelayProgressMode;
}

@Injectable()
class RelayLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly relay: OutboxRelay) {}
  onApplicationBootstrap(): void {
    this.relay.start();
  }
  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}

/** Runs the outbox relay of a service for the collections whose documents carry `_outbox`. */
@Module({})
export class OutboxModule {
  static forRoot(opts: RelayModuleOptions): DynamicModule {
    return {
      module: OutboxModule,
      providers: [
        { provide: RELAY_OPTIONS, useValue: opts },
        {
          provide: OutboxRelay,
          useFactory: async (db: Db, publisher: KafkaPublisher, logger: Logger, metrics: Metrics) => {
            await OutboxRelay.ensureIndexes(db, opts.collections);
            return new OutboxRelay({ db, collections: opts.collections, shardKeys: opts.shardKeys, publisher, logger, name: opts.name, pollIntervalMs: opts.pollIntervalMs, gatherMs: opts.gatherMs, progress: opts.progress, registry: metrics.registry });
          },
          inject: [MONGO_DB, KafkaPublisher, LOGGER, Metrics],
        },
        RelayLifecycle,
      ],
      exports: [OutboxRelay],
    };
  }
}
