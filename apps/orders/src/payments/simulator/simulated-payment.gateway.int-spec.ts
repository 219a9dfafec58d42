import { CommandStartedEvent, MongoClient } from 'mongodb';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { PaymentOperation, PaymentRequest, PaymentUnavailableError, SaleResult } from '../payment-gateway';
import type { SimulatorRules } from './psp-rules';
import {
  OperationDoc,
  SIM_OPERATIONS,
  SIM_PAYMENTS,
  SimulatedPaymentGateway,
} from './simulated-payment.gateway';

const WRITES = new Set(['insert', 'update', 'delete', 'findAndModify']);

/**
 * The PSP simulator on the real replica set: one majority write and at most one read per call, the
 * operations readable per idempotency key (the shape tests and the chaos checker read), a repeated
 * key answered from the record without a write, a late capture left unrecorded.
 */
describe('PSP simulator: one write per call (real MongoDB)', () => {
  const env = testEnv();
  const lateUser = uniqueName('late');
  const rules: SimulatorRules = {
    declineAmountFrom: null,
    declineTokens: [],
    declineUsers: [],
    hangUsers: [],
    lateCaptureUsers: [lateUser],
    latencyMinMs: 0,
    latencyMaxMs: 0,
    transientErrorRate: 0,
    timeoutRate: 0,
  };
  const dbName = uniqueName('orders_psp');
  const commands: CommandStartedEvent[] = [];
  let mongo: MongoClient;
  let psp: SimulatedPaymentGateway;

  beforeAll(async () => {
    mongo = createMongoClient(env.mongoUrl, { monitorCommands: true });
    mongo.on('commandStarted', (e) => {
      if (e.databaseName === dbName) commands.push(e);
    });
    await mongo.connect();
    psp = new SimulatedPaymentGateway(mongo.db(dbName), rules, pino({ level: 'silent' }), () => 0.5);
    await psp.ensureIndexes();
  });
  afterAll(async () => {
    await mongo.db(dbName).dropDatabase();
    await mongo.close();
  });

  const req = (reference: string, op: PaymentOperation, userId = 'u1'): PaymentRequest => ({
    idempotencyKey: `${reference}:${op}`,
    reference,
    amount: 1000,
    currency: 'RUB',
    cardToken: 'tok',
    userId,
  });
  /** The commands one call sends: [writes, reads]. */
  const counted = async (call: () => Promise<unknown>): Promise<[number, number]> => {
    const from = commands.length;
    await call();
    const sent = commands.slice(from).map((c) => c.commandName);
    return [sent.filter((c) => WRITES.has(c)).length, sent.filter((c) => c === 'find').length];
  };
  const operations = (reference: string) =>
    mongo.db(dbName).collection<OperationDoc>(SIM_OPERATIONS).find({ reference }).sort({ at: 1 }).toArray();

  it('authorize, capture, void of the captured, refund: each one write and one read', async () => {
    const ref = uniqueName('o');
    expect(await counted(() => psp.authorize(req(ref, 'authorize')))).toEqual([1, 1]);
    expect(await counted(() => psp.capture(req(ref, 'capture')))).toEqual([1, 1]);
    expect(await counted(() => psp.void(req(ref, 'void')))).toEqual([1, 1]); // already_captured: recorded, no state change
    expect(await counted(() => psp.refund(req(ref, 'refund')))).toEqual([1, 1]);
    expect(await psp.status(ref)).toBe('refunded');
    expect(
      (await operations(ref)).map((o) => `${o._id}|${o.reference}|${o.op}|${o.outcome.status}|${o.amount}`),
    ).toEqual([
      `${ref}:authorize|${ref}|authorize|authorized|1000`,
      `${ref}:capture|${ref}|capture|captured|1000`,
      `${ref}:void|${ref}|void|already_captured|1000`,
      `${ref}:refund|${ref}|refund|refunded|1000`,
    ]);
  });

  it('a sale authorizes and captures in one write and one read; its key repeated answers the record with no write', async () => {
    const ref = uniqueName('o');
    let sold: SaleResult | undefined;
    expect(await counted(async () => (sold = await psp.sale(req(ref, 'sale'))))).toEqual([1, 1]);
    expect(sold).toEqual({ status: 'captured', authorization_id: expect.stringMatching(/^auth_/) });
    expect(await counted(() => psp.sale(req(ref, 'sale')))).toEqual([0, 1]);
    expect(await psp.sale(req(ref, 'sale'))).toEqual(sold);
    expect(await psp.status(ref)).toBe('captured');
    expect(await mongo.db(dbName).collection(SIM_PAYMENTS).findOne({ _id: ref as never })).toMatchObject({
      status: 'captured',
      v: 1,
      authorization_id: sold?.status === 'captured' ? sold.authorization_id : 'none',
    });
    // the reversal of a sale: a void finds it captured, the refund takes the money back
    expect(await psp.void(req(ref, 'void'))).toEqual({ status: 'already_captured' });
    expect(await psp.refund(req(ref, 'refund'))).toEqual({ status: 'refunded' });
    expect((await operations(ref)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual([
      'sale:captured',
      'void:already_captured',
      'refund:refunded',
    ]);
  });

  it('a void before the sale blocks it (declined, nothing taken); a sale over the limit is declined with nothing taken', async () => {
    const ref = uniqueName('o');
    expect(await psp.refund(req(ref, 'refund'))).toEqual({ status: 'not_captured' });
    expect(await psp.void(req(ref, 'void'))).toEqual({ status: 'voided' });
    expect(await psp.sale(req(ref, 'sale'))).toEqual({ status: 'declined', code: 'PAYMENT_CANCELLED' });
    expect(await psp.status(ref)).toBe('voided');
    const limited = new SimulatedPaymentGateway(mongo.db(dbName), { ...rules, declineAmountFrom: 500 }, pino({ level: 'silent' }), () => 0.5);
    const big = uniqueName('o');
    expect(await limited.sale(req(big, 'sale'))).toEqual({ status: 'declined', code: 'AMOUNT_LIMIT_EXCEEDED' });
    expect(await psp.status(big)).toBe('declined');
  });

  it('a late sale leaves the payment authorized and unrecorded; it lands after the next refund is answered not_captured', async () => {
    const ref = uniqueName('o');
    await expect(psp.sale(req(ref, 'sale', lateUser))).rejects.toBeInstanceOf(PaymentUnavailableError);
    expect(await psp.status(ref)).toBe('authorized');
    expect(await operations(ref)).toEqual([]); // the key stays open: a retry meets the same rule
    expect(await psp.refund(req(ref, 'refund', lateUser))).toEqual({ status: 'not_captured' });
    expect(await psp.status(ref)).toBe('captured');
    expect(await psp.void(req(ref, 'void', lateUser))).toEqual({ status: 'already_captured' });
  });

  it('a repeated key answers the recorded outcome with no write; a capture of nothing is recorded with no state', async () => {
    const ref = uniqueName('o');
    const first = await psp.authorize(req(ref, 'authorize'));
    expect(await counted(() => psp.authorize(req(ref, 'authorize')))).toEqual([0, 1]);
    expect(await psp.authorize(req(ref, 'authorize'))).toEqual(first);
    const nothing = uniqueName('o');
    expect(await psp.capture(req(nothing, 'capture'))).toEqual({ status: 'failed', code: 'NOT_AUTHORIZED' });
    expect(await psp.status(nothing)).toBeNull();
    expect((await operations(nothing)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['capture:failed']);
  });

  it('two calls with one key at once: one record, the same answer to both', async () => {
    const ref = uniqueName('o');
    const [a, b] = await Promise.all([
      psp.authorize(req(ref, 'authorize')),
      psp.authorize(req(ref, 'authorize')),
    ]);
    expect(a).toEqual(b);
    expect(await operations(ref)).toHaveLength(1);
    const doc = await mongo
      .db(dbName)
      .collection(SIM_PAYMENTS)
      .findOne({ _id: ref as never });
    expect(doc).toMatchObject({ status: 'authorized', v: 1 });
  });

  it('overlapping calls share their round trips: eight authorizations at once, each recorded once, in a few reads and writes', async () => {
    const refs = Array.from({ length: 8 }, () => uniqueName('o'));
    const from = commands.length;
    const answers = await Promise.all(refs.map((ref) => psp.authorize(req(ref, 'authorize'))));
    const sent = commands.slice(from).map((c) => c.commandName);
    expect(answers.every((a) => a.status === 'authorized')).toBe(true);
    // the first call goes alone, the seven that arrive meanwhile together: two reads, two writes
    expect(sent.filter((c) => c === 'find').length).toBeLessThanOrEqual(3);
    expect(sent.filter((c) => WRITES.has(c)).length).toBeLessThanOrEqual(3);
    for (const ref of refs) expect((await operations(ref)).map((o) => o.outcome.status)).toEqual(['authorized']);
    // a bulk in which one guard loses: the loser reads again and finds the winner's state
    const ref = refs[0]!;
    const [captured, voided] = await Promise.all([psp.capture(req(ref, 'capture')), psp.void(req(ref, 'void'))]);
    const outcomes = [captured.status, voided.status].sort();
    // whichever wins, the other is answered from the winner's state, never from the state both read
    expect([['already_captured', 'captured'], ['failed', 'voided']]).toContainEqual(outcomes);
    expect(await operations(ref)).toHaveLength(3);
  });

  it('a late capture changes the state but is not recorded; it lands after the next refund is answered not_captured', async () => {
    const ref = uniqueName('o');
    await psp.authorize(req(ref, 'authorize', lateUser));
    await expect(psp.capture(req(ref, 'capture', lateUser))).rejects.toBeInstanceOf(PaymentUnavailableError);
    expect(await psp.status(ref)).toBe('authorized');
    expect(await psp.refund(req(ref, 'refund', lateUser))).toEqual({ status: 'not_captured' });
    expect(await psp.status(ref)).toBe('captured');
    expect((await operations(ref)).map((o) => `${o.op}:${o.outcome.status}`)).toEqual([
      'authorize:authorized',
      'refund:not_captured',
    ]);
  });

  it('a database written before: its operations collection is folded into the payments and becomes the view', async () => {
    const legacy = mongo.db(uniqueName('orders_psp_legacy'));
    try {
      const at = new Date();
      await legacy
        .collection(SIM_PAYMENTS)
        .insertOne({
          _id: 'r1' as never,
          v: 1,
          status: 'authorized',
          amount: 5,
          authorization_id: 'a',
          decline_code: null,
          user_id: 'u',
          updated_at: at,
        });
      await legacy.collection(SIM_OPERATIONS).insertMany([
        {
          _id: 'r1:authorize' as never,
          reference: 'r1',
          op: 'authorize',
          amount: 5,
          outcome: { status: 'authorized', authorization_id: 'a' },
          at,
        },
        {
          _id: 'r2:capture' as never,
          reference: 'r2',
          op: 'capture',
          amount: 5,
          outcome: { status: 'failed', code: 'NOT_AUTHORIZED' },
          at,
        },
      ]);
      const twice = new SimulatedPaymentGateway(legacy, rules, pino({ level: 'silent' }), () => 0.5);
      await Promise.all([twice.ensureIndexes(), twice.ensureIndexes()]);
      const [info] = await legacy.listCollections({ name: SIM_OPERATIONS }).toArray();
      expect(info?.type).toBe('view');
      const ops = await legacy.collection<OperationDoc>(SIM_OPERATIONS).find({}).sort({ _id: 1 }).toArray();
      expect(ops.map((o) => `${o._id}|${o.reference}|${o.outcome.status}`)).toEqual([
        'r1:authorize|r1|authorized',
        'r2:capture|r2|failed',
      ]);
      expect(await twice.authorize(req('r1', 'authorize'))).toEqual({
        status: 'authorized',
        authorization_id: 'a',
      });
      expect(await twice.capture(req('r1', 'capture'))).toEqual({ status: 'captured' });
    } finally {
      await legacy.dropDatabase();
    }
  });
});
