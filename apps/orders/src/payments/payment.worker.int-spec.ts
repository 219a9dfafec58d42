import { randomUUID } from 'node:crypto';
import { CommandStartedEvent, MongoClient } from 'mongodb';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import type { Order } from '../orders/order';
import { ORDERS_COLLECTION, OrdersRepository } from '../orders/orders.repository';
import { SagaMessages } from '../saga/saga-messages';
import { SagaNudges, SagaService } from '../saga/saga.service';
import type { SagaTimeouts } from '../saga/saga';
import type {
  AuthorizeResult,
  CaptureResult,
  PaymentGateway,
  PaymentRequest,
  PaymentStatus,
  RefundResult,
  SaleResult,
  VoidResult,
} from './payment-gateway';
import { PaymentWorker } from './payment.worker';
import { newTestOrder } from '../test/new-order';

const timeouts: SagaTimeouts = { stockMs: 60_000, paymentMs: 60_000, commitMs: 60_000, cancelMs: 60_000 };
const logger = pino({ level: 'silent' });

/** A PSP port that records every call and holds the payments (sales, authorizations) of chosen references until released. */
class ScriptedGateway implements PaymentGateway {
  readonly calls: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly holds = new Map<string, Promise<void>>();
  private readonly releases: (() => void)[] = [];

  /** Every payment from now on is held too, until released. */
  holdEveryPayment = false;

  hold(reference: string): void {
    this.holds.set(reference, new Promise((r) => this.releases.push(r)));
  }
  releaseAll(): void {
    for (const r of this.releases.splice(0)) r();
  }
  count(op: string, reference: string): number {
    return this.calls.filter((c) => c === `${op}:${reference}`).length;
  }

  authorize(req: PaymentRequest): Promise<AuthorizeResult> {
    return this.call('authorize', req, { status: 'authorized', authorization_id: `auth_${req.reference}` });
  }
  capture(req: PaymentRequest): Promise<CaptureResult> {
    return this.call('capture', req, { status: 'captured' });
  }
  sale(req: PaymentRequest): Promise<SaleResult> {
    return this.call('sale', req, { status: 'captured', authorization_id: `auth_${req.reference}` });
  }
  void(req: PaymentRequest): Promise<VoidResult> {
    return this.call('void', req, { status: 'voided' });
  }
  refund(req: PaymentRequest): Promise<RefundResult> {
    return this.call('refund', req, { status: 'refunded' });
  }
  status(): Promise<PaymentStatus | null> {
    return Promise.resolve(null);
  }

  private async call<T>(op: string, req: PaymentRequest, answer: T): Promise<T> {
    this.calls.push(`${op}:${req.reference}`);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const pays = op === 'sale' || op === 'authorize';
      if (pays && this.holdEveryPayment && !this.holds.has(req.reference)) this.hold(req.reference);
      if (pays) await this.holds.get(req.reference);
      await new Promise((r) => setTimeout(r, 5));
      return answer;
    } finally {
      this.inFlight--;
    }
  }
}

/** Nudges as the app wires them: a new payment step goes to this process's worker (when inline is on). */
class InlineNudges implements SagaNudges {
  worker: PaymentWorker | undefined;
  outboxNudges = 0;
  /** A process killed between the transition that claimed its step and the inline run: the step is never submitted. */
  diesBeforeRun = false;
  outbox(): void {
    this.outboxNudges++; // no relay in these tests
  }
  payment(order: Order, claimed?: boolean): void {
    if (!this.diesBeforeRun) this.worker?.submit(order, claimed);
  }
  paymentLease(orderId: string): number | undefined {
    return this.worker?.leaseFor(orderId);
  }
}

/**
 * The payment worker's pool, inline steps and claim on the real replica set (the PSP is a scripted
 * port): a slow call holds one slot only; a step created by a transition runs with no poller and
 * no re-read of the order; a step offered inline and found by pollers of other instances at once
 * runs once.
 */
describe('payment worker: pool, inline steps, claim (real MongoDB)', () => {
  const env = testEnv();
  const commands: CommandStartedEvent[] = [];
  let mongo: MongoClient;
  let repo: OrdersRepository;
  const dbName = uniqueName('orders_pay');
  const workers: PaymentWorker[] = [];

  beforeAll(async () => {
    mongo = createMongoClient(env.mongoUrl, { monitorCommands: true });
    mongo.on('commandStarted', (e) => {
      if (e.databaseName === dbName) commands.push(e);
    });
    await mongo.connect();
    repo = new OrdersRepository(mongo.db(dbName));
    await repo.ensureIndexes();
  });
  beforeEach(async () => {
    // each test's pollers see only its own orders
    await Promise.all(workers.map((w) => w.stop()));
    await mongo.db(dbName).collection(ORDERS_COLLECTION).deleteMany({});
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  const instance = (gateway: PaymentGateway, concurrency: number, inline: boolean, leaseMs = 30_000) => {
    const nudges = new InlineNudges();
    const saga = new SagaService(
      repo,
      new SagaMessages({ inventoryCommands: 'inv', orderEvents: 'ord' }, 900),
      timeouts,
      nudges,
      logger,
    );
    const worker = new PaymentWorker(
      repo,
      gateway,
      saga,
      {
        concurrency,
        leaseMs,
        retryBaseMs: 50,
        retryMaxMs: 200,
        callTimeoutMs: 30_000,
        defaultCardToken: 'tok',
      },
      logger,
    );
    if (inline) nudges.worker = worker;
    workers.push(worker);
    return { saga, worker, nudges };
  };

  /** A new order, then StockReserved through `saga`: the transition that creates its SALE step. */
  const reserved = async (saga: SagaService): Promise<string> => {
    const order = newTestOrder(timeouts);
    await repo.insertWithMessages(order, []);
    await saga.apply(
      order.id,
      { type: 'StockReserved', id: randomUUID(), expires_at: new Date(Date.now() + 600_000) },
      null,
    );
    return order.id;
  };
  const state = async (id: string) => (await repo.findById(id))?.saga.state;

  it('a slow PSP call holds one slot, not the others; the poller run does not wait for it', async () => {
    const gateway = new ScriptedGateway();
    const { saga, worker } = instance(gateway, 2, false);
    const slow = await reserved(saga);
    await new Promise((r) => setTimeout(r, 10)); // due after the slow one: the old groups put it with the slow one's
    const others = [await reserved(saga), await reserved(saga), await reserved(saga)];
    gateway.hold(slow);
    try {
      const run = worker.runOnce();
      await waitFor(
        () => Promise.resolve(gateway.count('sale', slow) === 1),
        10_000,
        'the slow sale started',
      );
      await waitFor(
        () => Promise.resolve(others.every((o) => gateway.count('sale', o) === 1)),
        10_000,
        'every other order paid while the slow call holds its slot',
      );
      expect(await Promise.race([run, new Promise((r) => setTimeout(() => r('still running'), 5_000))])).toBe(
        4,
      );
      expect(gateway.maxInFlight).toBe(2);
      expect(await state(slow)).toBe('AWAITING_PAYMENT');
    } finally {
      gateway.releaseAll();
    }
    await worker.idle();
    expect(gateway.count('sale', slow)).toBe(1);
  });

  it('a step created by a transition runs inline, one sale, without a poll, a re-read or a claim of its own', async () => {
    const gateway = new ScriptedGateway();
    const { saga, worker } = instance(gateway, 4, true);
    const from = commands.length;
    const id = await reserved(saga); // never a runOnce in this test
    await worker.idle(); // the inline run: the SALE, authorize and capture in one PSP call
    expect(['sale', 'authorize', 'capture'].map((op) => gateway.count(op, id))).toEqual([1, 0, 0]);
    const onOrders = commands
      .slice(from)
      .filter((c) => (c.command as Record<string, unknown>)[c.commandName] === ORDERS_COLLECTION)
      .map((c) => c.commandName);
    // the order's insert, StockReserved's load and transition (which claims SALE for this
    // process); then the transition of its outcome, straight to CONFIRMED
    expect(onOrders).toEqual(['insert', 'find', 'update', 'update']);
    const order = await repo.findById(id);
    expect(order?.saga.history.map((t) => t.event)).toEqual(['StockReserved', 'PaymentCaptured']);
    expect(order?.saga.payment).toMatchObject({ authorized: true, captured: true, authorization_id: `auth_${id}` });
    expect(await state(id)).toBe('CONFIRMED');
  });

  it('outcomes of steps that finish together are written together: bulkWrites of several transitions, no re-read, each once', async () => {
    const gateway = new ScriptedGateway();
    gateway.holdEveryPayment = true;
    const { saga, worker } = instance(gateway, 8, true);
    const ids: string[] = [];
    for (let k = 0; k < 6; k++) ids.push(await reserved(saga));
    await waitFor(
      () => Promise.resolve(ids.every((id) => gateway.count('sale', id) === 1)),
      10_000,
      'six sales in flight',
    );
    gateway.holdEveryPayment = false;
    const from = commands.length;
    gateway.releaseAll(); // the six answers arrive together
    await worker.idle();
    const onOrders = commands
      .slice(from)
      .filter((c) => (c.command as Record<string, unknown>)[c.commandName] === ORDERS_COLLECTION);
    const updates = onOrders.filter((c) => c.commandName === 'update').map((c) => (c.command['updates'] as unknown[]).length);
    // six sales, each outcome's transition written once, several in one command
    expect(updates.reduce((a, b) => a + b, 0)).toBe(6);
    expect(Math.max(...updates)).toBeGreaterThan(1);
    expect(onOrders.filter((c) => c.commandName !== 'update')).toEqual([]); // the orders as claimed: never read again
    for (const id of ids) {
      expect(gateway.count('sale', id)).toBe(1);
      const order = await repo.findById(id);
      expect(order?.saga.history.map((t) => t.event)).toEqual(['StockReserved', 'PaymentCaptured']);
      expect(order?.saga.state).toBe('CONFIRMED');
    }
  });

  it('a step its transition claimed, whose process dies before the run, is due after the lease and runs once elsewhere', async () => {
    const gateway = new ScriptedGateway();
    const a = instance(gateway, 4, true, 1_000);
    a.nudges.diesBeforeRun = true;
    const b = instance(gateway, 4, false);
    const id = await reserved(a.saga);
    const claimed = (await repo.findById(id))!.saga.payment;
    expect(claimed.step).toBe('SALE');
    expect(claimed.attempts).toBe(1); // the transition counted the attempt it claimed
    expect(await b.worker.runOnce()).toBe(0); // leased to a: not due for anyone else yet
    await waitFor(async () => (await b.worker.runOnce()) === 1, 10_000, 'the step due after its lease');
    await b.worker.idle();
    expect(gateway.count('sale', id)).toBe(1);
    expect(await state(id)).toBe('CONFIRMED');
  });

  it('a claimed step the worker cannot take (queue full, or stopping) is handed back at once, due for any poller', async () => {
    const gateway = new ScriptedGateway();
    const { saga, worker } = instance(gateway, 1, false); // one slot, four places in the queue
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await reserved(saga));
    gateway.hold(ids[0]!);
    try {
      for (const id of ids.slice(0, 5)) expect(worker.submit((await repo.findById(id))!)).toBe(true);
      expect(worker.leaseFor(ids[5]!)).toBeUndefined(); // full: a transition would not claim for it
      // claimed anyway (the queue filled between the lease and the write): refused and handed back
      const last = (await repo.findById(ids[5]!))!;
      const claimed = await repo.claimPaymentStep(last, 'SALE', new Date(), 30_000);
      expect(claimed?.saga.payment.next_at!.getTime()).toBeGreaterThan(Date.now());
      expect(worker.submit(claimed!, true)).toBe(false);
      await waitFor(
        async () => ((await repo.findById(ids[5]!))!.saga.payment.next_at?.getTime() ?? Infinity) <= Date.now(),
        5_000,
        'the refused claim handed back',
      );
    } finally {
      gateway.releaseAll();
    }
    await worker.idle();
    expect(ids.slice(0, 5).map((id) => gateway.count('sale', id))).toEqual([1, 1, 1, 1, 1]);
  });

  it('a step refused by a full queue is not dropped: when room frees the poller is asked for it', async () => {
    const gateway = new ScriptedGateway();
    const { saga, worker } = instance(gateway, 1, false); // one slot, four places in the queue
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await reserved(saga));
    const orders = await Promise.all(ids.map(async (id) => (await repo.findById(id))!));
    gateway.hold(ids[0]!);
    let asked = 0;
    worker.onRoom = () => {
      asked++;
      void worker.runOnce();
    };
    try {
      expect(orders.map((o) => worker.submit(o))).toEqual([true, true, true, true, true, false]);
      expect(asked).toBe(0);
    } finally {
      gateway.releaseAll();
    }
    await waitFor(
      () => Promise.resolve(gateway.count('sale', ids[5]!) === 1),
      10_000,
      'the refused step run',
    );
    await worker.idle();
    expect(asked).toBe(1);
    expect(ids.map((id) => gateway.count('sale', id))).toEqual(ids.map(() => 1));
  });

  it('a step offered inline and found by the pollers of two other instances at the same moment runs once', async () => {
    const gateway = new ScriptedGateway();
    const a = instance(gateway, 8, false);
    const b = instance(gateway, 8, false);
    const c = instance(gateway, 8, false);
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await reserved(a.saga));
    const orders = await Promise.all(ids.map(async (id) => (await repo.findById(id))!));
    for (const o of orders) a.worker.submit(o);
    await Promise.all([b.worker.runOnce(), c.worker.runOnce(), a.worker.runOnce()]);
    await Promise.all([a.worker.idle(), b.worker.idle(), c.worker.idle()]);
    expect(ids.map((id) => gateway.count('sale', id))).toEqual(ids.map(() => 1));
    for (const id of ids) expect(await state(id)).toBe('CONFIRMED');
    expect(new Set(orders.map((o) => o.saga.payment.step))).toEqual(new Set(['SALE']));
  });
});
