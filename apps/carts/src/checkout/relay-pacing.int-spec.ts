import { Client, types } from 'cassandra-driver';
import { CASSANDRA } from '@mw/persistence';
import { waitFor } from '@mw/testing';
import type { Logger } from 'pino';
import { KafkaPublisher } from '@mw/messaging';
import { LOGGER } from '@mw/platform';
import { CartsRepository } from '../carts/carts.repository';
import { MergeIntentsRepository } from '../merge/merge-intents.repository';
import { MergeRelay } from '../merge/merge-relay';
import { MergeService } from '../merge/merge.service';
import { CartsChild } from '../test/child';
import { CartsHarness, oid, RELAYS_RUN_BY_THE_TEST, sleep, type Who } from '../test/harness';
import { CheckoutRelay } from './checkout-relay';
import { CheckoutOutboxRepository } from './checkout.repository';
import { RelayBoundsRepository } from './relay-bounds.repository';

const { Uuid } = types;

/** Records the relays' reads as carts sends them to the real Cassandra (the driver is called as is). */
class RelayReads {
  readonly at: { table: string; time: number; traceId?: types.Uuid }[] = [];
  private restore: (() => void) | undefined;

  constructor(private readonly db: Client) {}

  /** Starts recording; with `trace`, each relay read is run with Cassandra tracing on (traceQuery). */
  record(opts: { trace?: boolean } = {}): void {
    const original = this.db.execute.bind(this.db) as (
      q: string,
      p?: unknown,
      o?: object,
    ) => Promise<types.ResultSet>;
    const traced = async (q: string, p?: unknown, o?: object): Promise<types.ResultSet> => {
      const table = /^SELECT .* FROM (checkout_outbox|merge_intents) WHERE bucket/i.exec(q)?.[1];
      if (!table) return original(q, p, o);
      const rs = await original(q, p, { ...o, ...(opts.trace ? { traceQuery: true } : {}) });
      this.at.push({ table, time: Date.now(), ...(opts.trace ? { traceId: rs.info.traceId } : {}) });
      return rs;
    };
    // The client's own method, wrapped: every statement still goes to the real Cassandra.
    const client = this.db as unknown as { execute: typeof traced };
    const saved = client.execute;
    client.execute = traced;
    this.restore = () => {
      client.execute = saved;
    };
  }

  stop(): void {
    this.restore?.();
  }

  count(table: string, since = 0): number {
    return this.at.filter((r) => r.table === table && r.time >= since).length;
  }

  /** "Read N live rows and M tombstone cells" of every traced read, summed: the tombstones the reads scanned. */
  async tombstonesScanned(): Promise<number> {
    let n = 0;
    for (const r of this.at) {
      const trace = await this.db.metadata.getTrace(r.traceId!);
      for (const e of trace.events)
        n += Number(/Read \d+ live rows and (\d+) tombstone cells/.exec(e.activity)?.[1] ?? 0);
    }
    return n;
  }
}

/**
 * The relays' time bound and idle backoff (ADR 0060, "The relays' time bound and idle backoff"),
 * against the real Cassandra and Kafka.
 */
describe('carts relays: reads bounded in time (real Cassandra)', () => {
  const h = new CartsHarness({ ...RELAYS_RUN_BY_THE_TEST, RELAY_LOOKBACK_MS: '1000' });
  let db: Client;

  beforeAll(async () => {
    await h.start();
    db = h.app.get<Client>(CASSANDRA);
  });

  /** One pass of each relay with its reads traced: every bucket read once, the tombstones they scanned. */
  async function tombstonesOfOnePass(checkout: CheckoutRelay, merge: MergeRelay): Promise<number> {
    const reads = new RelayReads(db);
    reads.record({ trace: true });
    try {
      await checkout.drainOnce();
      await merge.drainOnce();
    } finally {
      reads.stop();
    }
    expect(reads.count('checkout_outbox')).toBe(h.config.CHECKOUT_OUTBOX_BUCKETS);
    expect(reads.count('merge_intents')).toBe(4);
    return reads.tombstonesScanned();
  }
  afterAll(() => h.stop());

  it('after relaying 300 checkout intents and 100 merge intents, the next pass of each relay scans no tombstone', async () => {
    const now = new Date();
    const rows = [
      ...Array.from({ length: 300 }, (_, i) => ({
        q: `INSERT INTO checkout_outbox (bucket, created_at, checkout_id, cart_id, message_key, envelope) VALUES (?, ?, ?, ?, ?, ?)`,
        p: [i % 2, new Date(now.getTime() + i), Uuid.random(), Uuid.random(), 'k', '{}'],
      })),
      ...Array.from({ length: 100 }, (_, i) => ({
        q: `INSERT INTO merge_intents (bucket, created_at, guest_cart_id) VALUES (?, ?, ?)`,
        p: [i % 2, new Date(now.getTime() + i), Uuid.random()],
      })),
    ];
    for (let i = 0; i < rows.length; i += 50)
      await Promise.all(rows.slice(i, i + 50).map((r) => db.execute(r.q, r.p, { prepare: true })));
    // Older than the grace (their carts do not exist: each is deleted) and than the lookback.
    await sleep(1500);
    expect(await h.app.get(CheckoutRelay).drainOnce()).toBe(0);
    expect(await h.app.get(MergeRelay).drainOnce()).toBe(0);
    const left = await db.execute('SELECT COUNT(*) AS n FROM checkout_outbox');
    expect(Number(left.first()?.get('n'))).toBe(0);

    expect(await tombstonesOfOnePass(h.app.get(CheckoutRelay), h.app.get(MergeRelay))).toBe(0);
  });

  it('a restarted relay starts from the saved bounds: its first pass scans no tombstone either', async () => {
    // What a new process builds: relays with no bound in memory, on the same keyspace.
    const logger = h.app.get<Logger>(LOGGER);
    const bounds = h.app.get(RelayBoundsRepository);
    const restarted = {
      checkout: new CheckoutRelay(
        h.app.get(CheckoutOutboxRepository),
        h.app.get(CartsRepository),
        h.app.get(KafkaPublisher),
        bounds,
        h.config,
        logger,
      ),
      merge: new MergeRelay(
        h.app.get(MergeIntentsRepository),
        h.app.get(CartsRepository),
        h.app.get(MergeService),
        bounds,
        h.config,
        logger,
      ),
    };
    expect(await tombstonesOfOnePass(restarted.checkout, restarted.merge)).toBe(0);
  });
});

describe('carts relays: idle backoff and nudge (real Cassandra + Kafka)', () => {
  // A short interval so the backoff shows in seconds: cap 8 × 400 ms = 3.2 s.
  const pacing = {
    CHECKOUT_RELAY_INTERVAL_MS: '400',
    MERGE_RELAY_INTERVAL_MS: '400',
    CHECKOUT_RELAY_MIN_AGE_MS: '400',
    CHECKOUT_INTENT_GRACE_MS: '5000',
  };
  const phone = oid(0x7001);

  describe('an idle instance, and a checkout of its own that stops after the LWT', () => {
    // The checkout pauses after its LWT (never publishes itself): only the relay can publish it.
    const h = new CartsHarness({ ...pacing, CARTS_TEST_PAUSE_AT: 'after-lwt' });
    let alice: Who;
    let reads: RelayReads;

    beforeAll(async () => {
      await h.start();
      alice = await h.as('alice');
      await h.product(phone, 1, 500_00);
      await h.drained('catalog.products.v1');
      reads = new RelayReads(h.app.get<Client>(CASSANDRA));
      reads.record();
    });
    afterAll(async () => {
      reads.stop();
      await h.stop();
    });

    it('reads each relay table about once per 8 intervals while idle (10 passes per 4 s without the backoff)', async () => {
      await sleep(4000); // the backoff reaches its cap after 1 + 2 + 4 + 8 ticks (6 s at most here)
      const since = Date.now();
      await sleep(4000);
      const passes = {
        checkout: reads.count('checkout_outbox', since) / h.config.CHECKOUT_OUTBOX_BUCKETS,
        merge: reads.count('merge_intents', since) / 4,
      };
      // 4 s / (8 × 400 ms) = 1.25 passes each; 2 allows for a pass at both ends of the window.
      expect(passes.checkout).toBeLessThanOrEqual(2);
      expect(passes.merge).toBeLessThanOrEqual(2);
    });

    it('relays a checkout of this instance at once: its intent wakes the backed-off relay', async () => {
      const cart = await h.createCart('MSK', alice);
      await h.waitForPrice(cart, phone, '500.00', alice);
      await sleep(4000); // backed off again
      // Right after an idle read the next one is a whole cap (3.2 s) away — unless the checkout wakes the relay.
      const before = reads.count('checkout_outbox');
      await waitFor(async () => reads.count('checkout_outbox') > before, 10_000, 'an idle relay read');
      const sent = Date.now();
      const abort = new AbortController();
      void fetch(`${h.url}/carts/${cart}/checkout`, {
        method: 'POST',
        headers: alice,
        signal: abort.signal,
      }).catch(() => undefined);
      try {
        await waitFor(async () => h.checkoutsOf(cart).length === 1, 10_000, 'CheckoutRequested relayed');
      } finally {
        abort.abort();
      }
      // min age 400 ms + a tick of 400 ms + the pass; the backed-off relay would read only after 3.2 s.
      expect(Date.now() - sent).toBeLessThan(2500);
    });
  });

  describe('a checkout of a crashed instance', () => {
    const h = new CartsHarness(pacing);
    let child: CartsChild | undefined;

    beforeAll(async () => {
      child = new CartsChild({ ...h.env, CARTS_TEST_PAUSE_AT: 'after-lwt' });
      await child.start();
      await h.start();
      await h.product(phone, 1, 500_00);
      await h.drained('catalog.products.v1');
    });
    afterAll(async () => {
      await child?.kill();
      await h.stop();
    });

    it('is relayed by an idle instance within its backoff cap', async () => {
      const alice = await h.as('alice');
      const cart = await h.createCart('MSK', alice);
      await h.waitForPrice(cart, phone, '500.00', alice);
      await sleep(4000); // this instance's relay is backed off
      void fetch(`${child!.url}/carts/${cart}/checkout`, { method: 'POST', headers: alice }).catch(
        () => undefined,
      );
      await child!.pausedAt('after-lwt');
      const crashed = child!;
      child = undefined;
      await crashed.kill();
      const killed = Date.now();
      await waitFor(async () => h.checkoutsOf(cart).length === 1, 20_000, 'CheckoutRequested relayed');
      // min age 400 ms + at most the cap (3.2 s) + the pass
      expect(Date.now() - killed).toBeLessThan(5500);
    });
  });
});
