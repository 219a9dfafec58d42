/**
 * The floor of a checkout (issue #31): the minimum durable work a checkout must do, batched the way
 * the services batch it, on the same servers with the services stopped. What a checkout cannot do
 * without, and nothing else:
 *
 *   carts      the cart's LWT (active → checking_out), the checkout intent, CheckoutRequested
 *   orders     the order (one document), OrderCreated, ReserveStock
 *   inventory  the hold on each line's stock document and the reservation (lines + 1 documents),
 *              StockReserved, StockLevelChanged
 *   orders     the PSP's sale, authorize and capture in one call (latency 20–150 ms, as the
 *              simulator; ADR 0015 §11), and the payment recorded with CONFIRMED in one transition
 *              (one document), the stock sale (CommitStock) and OrderConfirmed sent together (§3)
 *   then, side by side:
 *   inventory  the sale on each stock document and the reservation's end (lines + 1), StockLevelChanged
 *   carts      the cart's LWT (checking_out → ordered), the user's lookup and activity rows
 *
 * Each stage is group-committed as the services' batch consumers do: while a stage's write is in
 * flight the checkouts reaching it wait, and the next write carries all of them — one unordered
 * `w: majority` bulkWrite per stage for MongoDB, one `sendBatch` (acks=all) per stage for Kafka.
 * Cassandra LWTs cannot share a round trip (one Paxos per partition), so they and the plain writes
 * go one statement each, concurrently, as carts sends them. Every message is consumed by as many
 * consumer groups as read its topic in the system.
 */
import { randomUUID } from 'node:crypto';
import type { Client as CassandraClient } from 'cassandra-driver';
import type { Kafka, Producer } from 'kafkajs';
import { type AnyBulkWriteOperation, type MongoClient, WriteConcern } from 'mongodb';
import { GroupCommit } from '@mw/platform';

/** One checkout's minimum, per store; the module comment says where each comes from. */
export const FLOOR_PER_CHECKOUT = {
  /** order insert, holds (2 lines) + reservation, payment with CONFIRMED, sales (2 lines) + reservation end */
  mongoDocuments: 1 + 3 + 1 + 3,
  kafkaMessages: 8,
  cassandraLwt: 2,
  /** the intent, the lookup row, two activity rows */
  cassandraWrites: 4,
} as const;

export interface FloorInput {
  readonly kafka: Kafka;
  readonly producer: Producer;
  readonly mongo: MongoClient;
  readonly cassandra: CassandraClient;
  /** A private database and keyspace name stem, dropped at the end. */
  readonly run: string;
  /** Kafka topic stem: `<stem>.<stage topic>` are created for the run. */
  readonly topicStem: string;
  readonly partitions: number;
  readonly checkouts: number;
  readonly concurrency: number;
  /** A real envelope per message type (as the services sent it), so the bytes are the services'. */
  readonly sample: (type: string) => { key: string; value: string };
  /** Called once the consumers are up and the setup written, just before the clock starts (CPU and oplog counters are read there). */
  readonly onStart: () => Promise<void>;
  /**
   * Called when the last checkout's messages were consumed, before the consumers leave and the
   * run's database, keyspace and topics are dropped: the counters are read there, so the floor's
   * CPU is its checkouts' and not the cleanup's (a DROP KEYSPACE flushes and snapshots; until
   * 2026-12-02 the cleanup was counted, most of the floor's Cassandra figure).
   */
  readonly onEnd: () => Promise<void>;
}

export interface FloorResult {
  readonly concurrency: number;
  readonly checkouts: number;
  readonly seconds: number;
  readonly checkouts_per_s: number;
  readonly consumed_all: boolean;
  readonly per_checkout: typeof FLOOR_PER_CHECKOUT & { kafka_consumed: number };
  /** Average checkouts per MongoDB bulkWrite and per Kafka send: how full the groups were. */
  readonly group_fill: { mongo: number; kafka: number };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 1) => Number(n.toFixed(d));

/** The stages' topics and how many groups read each in the system (carts and the saga both read inventory events). */
const TOPICS = { checkout: 1, orders: 1, commands: 1, events: 2 } as const;
type StageTopic = keyof typeof TOPICS;

export async function floorLoop(i: FloorInput): Promise<FloorResult> {
  const topic = (t: StageTopic) => `${i.topicStem}.floor.${t}`;
  const admin = i.kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: (Object.keys(TOPICS) as StageTopic[]).map((t) => ({
      topic: topic(t),
      numPartitions: i.partitions,
    })),
    waitForLeaders: true,
  });
  await admin.disconnect();

  // messages per checkout per topic (FLOOR_PER_CHECKOUT.kafkaMessages in all)
  const plan: Record<StageTopic, string[]> = {
    checkout: ['CheckoutRequested'],
    orders: ['OrderCreated', 'OrderConfirmed'],
    commands: ['ReserveStock', 'CommitStock'],
    events: ['StockReserved', 'StockLevelChanged', 'StockLevelChanged'],
  };
  const consumedPerCheckout = (Object.keys(plan) as StageTopic[]).reduce(
    (n, t) => n + plan[t].length * TOPICS[t],
    0,
  );
  let consumed = 0;
  const consumers = [];
  for (const t of Object.keys(TOPICS) as StageTopic[]) {
    for (let g = 0; g < TOPICS[t]; g++) {
      const c = i.kafka.consumer({ groupId: `floor-${i.run}-${t}-${g}` });
      consumers.push(c);
      await c.connect();
      await c.subscribe({ topic: topic(t), fromBeginning: true });
      await c.run({
        partitionsConsumedConcurrently: i.partitions,
        eachBatch: async ({ batch }) => void (consumed += batch.messages.length),
      });
    }
  }

  const db = i.mongo.db(`floor_${i.run}`);
  const majority = { writeConcern: new WriteConcern('majority') };
  const orders = db.collection<{
    _id: string;
    status: string;
    version: number;
    lines: unknown[];
    payment?: unknown;
  }>('orders', majority);
  const stock = db.collection<{ _id: string; available: number; reserved: number; sold: number }>(
    'stock',
    majority,
  );
  const reservations = db.collection<{ _id: string; order_id: string; status: string }>(
    'reservations',
    majority,
  );
  const PRODUCTS = 200;
  await stock.insertMany(
    Array.from({ length: PRODUCTS }, (_, k) => ({ _id: `p${k}`, available: 1e9, reserved: 0, sold: 0 })),
  );
  const ks = `floor_${i.run}`.slice(0, 48);
  await i.cassandra.execute(
    `CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
  );
  await i.cassandra.execute(
    `CREATE TABLE IF NOT EXISTS ${ks}.carts (id text PRIMARY KEY, status text, body text)`,
  );
  await i.cassandra.execute(`CREATE TABLE IF NOT EXISTS ${ks}.rows (id text PRIMARY KEY, body text)`);

  let mongoWrites = 0;
  let mongoFlushedCheckouts = 0;
  const bulk = <D extends { _id: string }>(coll: {
    bulkWrite: (ops: AnyBulkWriteOperation<D>[], o: { ordered: boolean }) => Promise<unknown>;
  }) =>
    new GroupCommit<AnyBulkWriteOperation<D>[]>(async (items) => {
      mongoWrites++;
      mongoFlushedCheckouts += items.length;
      await coll.bulkWrite(items.flat(), { ordered: false });
      return [];
    });
  let kafkaSends = 0;
  let kafkaFlushedCheckouts = 0;
  const send = new GroupCommit<{ topic: StageTopic; type: string }[]>(async (items) => {
    kafkaSends++;
    kafkaFlushedCheckouts += items.length;
    const byTopic = new Map<string, { key: string; value: string }[]>();
    for (const m of items.flat()) {
      const list = byTopic.get(topic(m.topic)) ?? [];
      list.push(i.sample(m.type));
      byTopic.set(topic(m.topic), list);
    }
    await i.producer.sendBatch({
      acks: -1,
      topicMessages: [...byTopic].map(([t, messages]) => ({ topic: t, messages })),
    });
    return [];
  });
  const orderWrites = bulk(orders);
  const stockWrites = bulk(stock);
  const reservationWrites = bulk(reservations);
  const body = 'x'.repeat(600);
  const cql = (q: string, params: unknown[]) => i.cassandra.execute(q, params, { prepare: true });

  // the carts exist before the clock starts, as in the services' run
  const ids = Array.from({ length: i.checkouts }, () => randomUUID());
  for (let k = 0; k < ids.length; k += 64)
    await Promise.all(
      ids
        .slice(k, k + 64)
        .map((id) => cql(`INSERT INTO ${ks}.carts (id, status, body) VALUES (?, 'active', ?)`, [id, body])),
    );

  let n = 0;
  await i.onStart();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: i.concurrency }, async () => {
      while (n < i.checkouts) {
        const id = ids[n++]!;
        const lines = [
          `p${Math.floor(Math.random() * PRODUCTS)}`,
          `p${Math.floor(Math.random() * PRODUCTS)}`,
        ];
        // carts: the cart's LWT, the intent
        await cql(`UPDATE ${ks}.carts SET status = 'checking_out' WHERE id = ? IF status = 'active'`, [id]);
        await cql(`INSERT INTO ${ks}.rows (id, body) VALUES (?, ?)`, [`${id}-intent`, body]);
        await send.add([{ topic: 'checkout', type: 'CheckoutRequested' }]);
        // orders: the order, then ReserveStock
        await orderWrites.add([
          { insertOne: { document: { _id: id, status: 'AWAITING_STOCK', version: 1, lines } } },
        ]);
        await send.add([
          { topic: 'orders', type: 'OrderCreated' },
          { topic: 'commands', type: 'ReserveStock' },
        ]);
        // inventory: the holds and the reservation
        await Promise.all([
          stockWrites.add(
            lines.map((p) => ({
              updateOne: {
                filter: { _id: p, available: { $gte: 1 } },
                update: { $inc: { available: -1, reserved: 1 } },
              },
            })),
          ),
          reservationWrites.add([{ insertOne: { document: { _id: id, order_id: id, status: 'RESERVED' } } }]),
        ]);
        await send.add([
          { topic: 'events', type: 'StockReserved' },
          { topic: 'events', type: 'StockLevelChanged' },
        ]);
        // orders: the PSP's sale (one call), the payment with CONFIRMED, the stock sale and OrderConfirmed together
        await sleep(20 + Math.random() * 130);
        await orderWrites.add([
          {
            updateOne: {
              filter: { _id: id, version: 1 },
              update: {
                $set: { status: 'CONFIRMED', payment: { authorized: true, captured: true } },
                $inc: { version: 1 },
              },
            },
          },
        ]);
        await send.add([
          { topic: 'commands', type: 'CommitStock' },
          { topic: 'orders', type: 'OrderConfirmed' },
        ]);
        await Promise.all([
          // inventory: the sale and the reservation's end, answered by nobody (only the level changes)
          (async () => {
            await Promise.all([
              stockWrites.add(
                lines.map((p) => ({
                  updateOne: { filter: { _id: p }, update: { $inc: { reserved: -1, sold: 1 } } },
                })),
              ),
              reservationWrites.add([
                {
                  updateOne: {
                    filter: { _id: id, status: 'RESERVED' },
                    update: { $set: { status: 'COMMITTED' } },
                  },
                },
              ]),
            ]);
            await send.add([{ topic: 'events', type: 'StockLevelChanged' }]);
          })(),
          // carts: the outcome's LWT, the lookup row and the activity rows
          (async () => {
            await cql(`UPDATE ${ks}.carts SET status = 'ordered' WHERE id = ? IF status = 'checking_out'`, [id]);
            await Promise.all(
              [`${id}-lookup`, `${id}-a1`, `${id}-a2`].map((row) =>
                cql(`INSERT INTO ${ks}.rows (id, body) VALUES (?, ?)`, [row, body]),
              ),
            );
          })(),
        ]);
      }
    }),
  );
  const deadline = Date.now() + 60_000;
  while (consumed < consumedPerCheckout * i.checkouts && Date.now() < deadline) await sleep(10);
  const elapsed = (performance.now() - started) / 1000;
  await i.onEnd();
  for (const c of consumers) await c.disconnect().catch(() => undefined);
  await db.dropDatabase();
  await i.cassandra.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
  const admin2 = i.kafka.admin();
  await admin2.connect();
  await admin2
    .deleteTopics({ topics: (Object.keys(TOPICS) as StageTopic[]).map(topic) })
    .catch(() => undefined);
  await admin2.disconnect();
  return {
    concurrency: i.concurrency,
    checkouts: i.checkouts,
    seconds: round(elapsed, 2),
    checkouts_per_s: round(i.checkouts / elapsed),
    consumed_all: consumed >= consumedPerCheckout * i.checkouts,
    per_checkout: { ...FLOOR_PER_CHECKOUT, kafka_consumed: consumedPerCheckout },
    group_fill: {
      mongo: round(mongoFlushedCheckouts / Math.max(1, mongoWrites), 2),
      kafka: round(kafkaFlushedCheckouts / Math.max(1, kafkaSends), 2),
    },
  };
}
