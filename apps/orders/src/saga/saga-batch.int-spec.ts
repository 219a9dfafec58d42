import { randomUUID } from 'node:crypto';
import { CommandStartedEvent, MongoClient } from 'mongodb';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { CheckoutService } from '../orders/checkout.service';
import { Order, orderIdFromCheckout } from '../orders/order';
import { ORDERS_COLLECTION, OrderDoc, OrdersRepository } from '../orders/orders.repository';
import type { SagaInput, SagaTimeouts } from './saga';
import { SagaMessages } from './saga-messages';
import { SagaNudges, SagaService } from './saga.service';

const timeouts: SagaTimeouts = { stockMs: 60_000, paymentMs: 60_000, commitMs: 60_000, cancelMs: 60_000 };
const logger = pino({ level: 'silent' });
const env = testEnv();

/** Another writer moves some orders between the batch's read and its bulkWrite (the race a guard exists for). */
class RacingRepository extends OrdersRepository {
  racers: readonly string[] = [];
  constructor(private readonly coll: () => ReturnType<MongoClient['db']>) {
    super(coll());
  }
  override async findByIds(ids: readonly string[]): Promise<Map<string, Order>> {
    const found = await super.findByIds(ids);
    if (this.racers.length > 0) {
      await this.coll()
        .collection<OrderDoc>(ORDERS_COLLECTION)
        .updateMany({ _id: { $in: [...this.racers] } }, { $inc: { version: 1 }, $set: { updated_at: new Date() } });
    }
    return found;
  }
}

/**
 * The saga's group commit (ADR 0012 §4) on the real replica set: one insert for a chunk's
 * checkouts, one read and one bulkWrite for a chunk's inventory replies, each transition guarded by
 * its order's version. Losers of the guard, a duplicate inside the batch and an order with two
 * inputs in one batch are settled by the single path, and nothing is written twice.
 */
describe('saga group commit', () => {
  const dbName = uniqueName('orders_batch');
  const commands: CommandStartedEvent[] = [];
  let mongo: MongoClient;
  let repo: RacingRepository;
  let checkout: CheckoutService;
  let saga: SagaService;
  const nudged = { outbox: 0, payments: [] as { id: string; version: number; claimed: boolean }[] };
  /** Steps the worker would take at once (the test worker's room); a batch must not claim more. */
  let room = Infinity;
  const nudges: SagaNudges = {
    outbox: () => void nudged.outbox++,
    payment: (o, claimed) => void nudged.payments.push({ id: o.id, version: o.version, claimed: claimed === true }),
    paymentLease: (_id, ahead = 0) => (ahead < room ? 15_000 : undefined),
  };
  const messages = new SagaMessages({ inventoryCommands: 'test.inventory.commands', orderEvents: 'test.orders.orders' }, 900);
  const orders = () => mongo.db(dbName).collection<OrderDoc>(ORDERS_COLLECTION);
  const onOrders = (from: number) =>
    commands.slice(from).filter((c) => c.command[c.commandName] === ORDERS_COLLECTION).map((c) => c.commandName);

  beforeAll(async () => {
    mongo = createMongoClient(env.mongoUrl, { monitorCommands: true });
    mongo.on('commandStarted', (e) => {
      if (e.databaseName === dbName) commands.push(e);
    });
    await mongo.connect();
    repo = new RacingRepository(() => mongo.db(dbName));
    await repo.ensureIndexes();
    checkout = new CheckoutService(repo, messages, ['MSK', 'SPB'], timeouts, nudges, logger, { inc: () => undefined });
    saga = new SagaService(repo, messages, timeouts, nudges, logger);
  });
  afterAll(async () => {
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  const checkoutOf = () => {
    const checkout_id = randomUUID();
    return {
      payload: {
        cart_id: randomUUID(),
        checkout_id,
        user_id: uniqueName('user'),
        zone: 'MSK',
        currency: 'RUB' as const,
        lines: [{ product_id: '65f000000000000000000001', name: 'Смартфон', qty: 1, unit_price: 1999900 }],
        total: 1999900,
      },
      trace: { correlation_id: `saga-${checkout_id}`, causation_id: randomUUID() },
    };
  };
  const reserved = (): SagaInput => ({ type: 'StockReserved', id: randomUUID(), expires_at: new Date(Date.now() + 600_000) });

  it('inserts a chunk of checkouts at once; a checkout delivered twice in it is one order', async () => {
    const chunk = Array.from({ length: 4 }, checkoutOf);
    const from = commands.length;
    await checkout.onCheckoutRequestedMany([...chunk, chunk[2]!]);
    expect(onOrders(from)).toEqual(['insert']);
    const docs = await orders().find({ checkout_id: { $in: chunk.map((c) => c.payload.checkout_id) } }).toArray();
    expect(docs).toHaveLength(4);
    // each order carries OrderCreated and ReserveStock once
    for (const d of docs) expect(d._outbox?.map((e) => (JSON.parse(e.envelope) as { type: string }).type).sort()).toEqual(['OrderCreated', 'ReserveStock']);
    // a redelivered chunk inserts nothing and fails nothing
    await checkout.onCheckoutRequestedMany(chunk);
    expect(await orders().countDocuments({ checkout_id: { $in: chunk.map((c) => c.payload.checkout_id) } })).toBe(4);
  });

  it('writes a chunk of transitions with one read and one bulkWrite; losers of the guard, a duplicate and a second input of one order take the single path', async () => {
    const chunk = Array.from({ length: 5 }, checkoutOf);
    await checkout.onCheckoutRequestedMany(chunk);
    const ids = chunk.map((c) => orderIdFromCheckout(c.payload.checkout_id));
    const inputs = ids.map((id) => ({ orderId: id, input: reserved(), causation: randomUUID() }));
    // orders 1 and 3 are moved by another writer between the batch's read and its write
    repo.racers = [ids[1]!, ids[3]!];
    const duplicate = inputs[2]!; // delivered twice in the same batch
    const cancel: SagaInput = { type: 'CancelRequested', id: randomUUID(), by: { sub: 'someone', role: 'customer' } };
    const batch = [...inputs, duplicate, { orderId: ids[4]!, input: cancel, causation: null }];
    const from = commands.length;
    nudged.payments.length = 0;
    const outcomes = await saga.applyMany(batch);
    repo.racers = [];

    // batch: one find of the five orders (the racer's update), one bulk update; then the single path
    // reloads the two losers (find + update each), ignores the duplicate (find) and applies the
    // cancel (find + update)
    expect(onOrders(from)).toEqual(['find', 'update', 'update', 'find', 'update', 'find', 'update', 'find', 'find', 'update']);
    expect(outcomes).toEqual(['applied', 'applied', 'applied', 'applied', 'applied', 'ignored', 'applied']);
    const after = await orders().find({ _id: { $in: ids } }).toArray();
    for (const [k, id] of ids.entries()) {
      const d = after.find((x) => x._id === id)!;
      // each StockReserved is in the history once, whoever wrote it
      expect(d.saga.history.filter((h) => h.cause === inputs[k]!.input.id)).toHaveLength(1);
      expect(d.saga.state).toBe(k === 4 ? 'CANCELLING' : 'AWAITING_PAYMENT');
    }
    // the three written by the batch were claimed by it (one write: next_at = lease, one attempt);
    // the two losers were claimed by their single-path retry; each armed step is handed over once
    const authorizing = nudged.payments.filter((p) => ids.slice(0, 4).includes(p.id));
    expect(authorizing.map((p) => p.id).sort()).toEqual(ids.slice(0, 4).sort());
    expect(authorizing.every((p) => p.claimed)).toBe(true);
    for (const p of authorizing) {
      const d = after.find((x) => x._id === p.id)!;
      expect(d.saga.payment.attempts).toBe(1);
      expect(d.version).toBe(p.version);
    }
  });

  it('claims no more payment steps in one batch than the worker has room for; the rest stay due for any claimer', async () => {
    const chunk = Array.from({ length: 5 }, checkoutOf);
    await checkout.onCheckoutRequestedMany(chunk);
    const ids = chunk.map((c) => orderIdFromCheckout(c.payload.checkout_id));
    room = 2;
    nudged.payments.length = 0;
    const before = new Date();
    try {
      expect(await saga.applyMany(ids.map((id) => ({ orderId: id, input: reserved(), causation: randomUUID() })))).toEqual(Array(5).fill('applied'));
    } finally {
      room = Infinity;
    }
    expect(nudged.payments.map((p) => p.claimed)).toEqual([true, true, false, false, false]);
    const after = await orders().find({ _id: { $in: ids } }).toArray();
    const leased = after.filter((d) => d.saga.payment.attempts === 1 && d.saga.payment.next_at!.getTime() > before.getTime() + 10_000);
    const due = after.filter((d) => d.saga.payment.attempts === 0 && d.saga.payment.next_at!.getTime() <= Date.now());
    expect([leased.length, due.length]).toEqual([2, 3]);
  });
});
