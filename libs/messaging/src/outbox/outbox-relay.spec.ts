import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';
import pino from 'pino';
import { KafkaPublisher } from '../publisher/publisher';
import { idleDelay, OutboxRelay } from './outbox-relay';

/** The relay's scheduling, with its pass replaced: nothing here touches a server. */
class GatedRelay extends OutboxRelay {
  passes = 0;
  private release: ((n: number) => void) | undefined;
  override drainOnce(): Promise<number> {
    this.passes++;
    return new Promise((r) => (this.release = r));
  }
  finish(published: number): void {
    this.release?.(published);
    this.release = undefined;
  }
}

const until = async (what: () => boolean, ms = 2000): Promise<void> => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('outbox relay scheduling', () => {
  const client = new MongoClient('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=50');
  const publisher = new KafkaPublisher(new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }));
  const relay = (): GatedRelay =>
    new GatedRelay({ db: client.db('x'), collections: ['a'], publisher, logger: pino({ level: 'silent' }), name: 'r', pollIntervalMs: 60_000 });
  afterAll(() => client.close());

  it('a nudge that arrives during a pass schedules another pass right after it (it is never dropped)', async () => {
    const r = relay();
    r.start();
    await until(() => r.passes === 1);
    r.nudge(); // the entry written now may be after this pass's read
    r.finish(0);
    await until(() => r.passes === 2, 1000);
    r.finish(0);
    const stopping = r.stop();
    r.finish(0);
    await stopping;
  });

  it('idle passes back off from the poll interval to the maximum, doubling', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => idleDelay(250, 2000, n))).toEqual([250, 500, 1000, 2000, 2000, 2000]);
    expect(idleDelay(250, 100, 3)).toBe(250); // never below the poll interval
  });
});
