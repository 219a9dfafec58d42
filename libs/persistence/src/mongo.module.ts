import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Db, MongoClient, ReadPreferenceMode } from 'mongodb';
import { HealthRegistry, Metrics } from '@mw/platform';
import { createMongoClient } from './mongo-client';
import { MongoServerMetrics } from './mongo-server-metrics';

export const MONGO_CLIENT = Symbol('MONGO_CLIENT');
export const MONGO_DB = Symbol('MONGO_DB');

export interface MongoOptions {
  readonly url: string;
  readonly dbName: string;
  readonly appName: string;
  /** Default read preference of the client; decision reads pass `primary` explicitly. */
  readonly readPreference?: ReadPreferenceMode;
}

const MONGO_OPTIONS = Symbol('MONGO_OPTIONS');

@Injectable()
class MongoLifecycle implements OnModuleInit, OnApplicationShutdown {
  private serverMetrics: MongoServerMetrics | undefined;
  constructor(
    @Inject(MONGO_CLIENT) private readonly client: MongoClient,
    @Inject(MONGO_OPTIONS) private readonly opts: MongoOptions,
    private readonly health: HealthRegistry,
    private readonly metrics: Metrics,
  ) {}
  onModuleInit(): void {
    this.health.register({ name: 'mongodb', check: async () => void (await this.client.db('admin').command({ ping: 1 })) });
    this.serverMetrics = new MongoServerMetrics(this.client, this.opts.url, this.metrics.registry);
  }
  async onApplicationShutdown(): Promise<void> {
    await this.serverMetrics?.close();
    await this.client.close();
  }
}

/** One MongoClient per service process, connected before the app starts (fails fast, one line). */
@Global()
@Module({})
export class MongoModule {
  static forRoot(opts: MongoOptions): DynamicModule {
    return {
      module: MongoModule,
      providers: [
        {
          provide: MONGO_CLIENT,
          useFactory: async () => {
            const client = createMongoClient(opts.url, {
              appName: opts.appName,
              readPreference: opts.readPreference ?? 'primary',
              // Every write of these services is a decision or carries an outbox event: acknowledged
              // only once a majority has it, so an election can never roll back a published event.
              writeConcern: { w: 'majority' },
              // Long enough to ride through an election of the replica set (5 s election timeout
              // plus the vote): the retryable write or read then goes to the new primary.
              serverSelectionTimeoutMS: 15_000,
            });
            try {
              await client.connect();
              await client.db('admin').command({ ping: 1 });
            } catch (e) {
              await client.close().catch(() => undefined);
              throw new Error(`MongoDB unreachable at ${redact(opts.url)}: ${(e as Error).message} (start it with: npm run infra:up)`);
            }
            return client;
          },
        },
        { provide: MONGO_DB, useFactory: (client: MongoClient): Db => client.db(opts.dbName), inject: [MONGO_CLIENT] },
        { provide: MONGO_OPTIONS, useValue: opts },
        MongoLifecycle,
      ],
      exports: [MONGO_CLIENT, MONGO_DB],
    };
  }
}

export function redact(url: string): string {
  return url.replace(/\/\/[^@/]+@/, '//***@');
}
