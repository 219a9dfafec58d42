import { randomUUID } from 'node:crypto';
import { Collection, Db, MongoServerError, ReadPreference, WriteConcern } from 'mongodb';
import type { Logger } from 'pino';
import {
  AuthorizeResult,
  CaptureResult,
  PaymentGateway,
  PaymentOperation,
  PaymentRequest,
  PaymentStatus,
  PaymentUnavailableError,
  RefundResult,
  VoidResult,
} from '../payment-gateway';
import { applyOperation, latencyOf, PspOutcome, PspPayment, SimulatorRules } from './psp-rules';

/** One document per payment reference (order): the simulated PSP's ledger. */
export const SIM_PAYMENTS = 'payment_sim_payments';
/** One document per idempotency key: every authorization, capture, void and refund the PSP performed. */
export const SIM_OPERATIONS = 'payment_sim_operations';

interface PaymentDoc extends PspPayment {
  _id: string;
  v: number;
  user_id: string;
  updated_at: Date;
}

export interface OperationDoc {
  _id: string;
  reference: string;
  op: PaymentOperation;
  amount: number;
  outcome: PspOutcome;
  at: Date;
}

const majority = { writeConcern: new WriteConcern('majority') };
const primary = { readPreference: ReadPreference.primary };

/**
 * A PSP simulator behind the PaymentGateway port, persisted in MongoDB (its own collections) so
 * idempotency holds across restarts and tests in another process can count the operations.
 * A repeated idempotency key returns the recorded outcome without doing anything.
 */
export class SimulatedPaymentGateway implements PaymentGateway {
  private readonly payments: Collection<PaymentDoc>;
  private readonly operations: Collection<OperationDoc>;

  constructor(
    db: Db,
    private readonly rules: SimulatorRules,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.payments = db.collection<PaymentDoc>(SIM_PAYMENTS, majority);
    this.operations = db.collection<OperationDoc>(SIM_OPERATIONS, majority);
  }

  async ensureIndexes(): Promise<void> {
    await this.operations.createIndex({ reference: 1, op: 1 }, { name: 'by_reference' });
  }

  authorize(req: PaymentRequest): Promise<AuthorizeResult> {
    return this.perform('authorize', req) as Promise<AuthorizeResult>;
  }
  capture(req: PaymentRequest): Promise<CaptureResult> {
    return this.perform('capture', req) as Promise<CaptureResult>;
  }
  void(req: PaymentRequest): Promise<VoidResult> {
    return this.perform('void', req) as Promise<VoidResult>;
  }
  refund(req: PaymentRequest): Promise<RefundResult> {
    return this.perform('refund', req) as Promise<RefundResult>;
  }
  async status(reference: string): Promise<PaymentStatus | null> {
    return (await this.payments.findOne({ _id: reference }, primary))?.status ?? null;
  }

  private async perform(op: PaymentOperation, req: PaymentRequest): Promise<PspOutcome> {
    const recorded = await this.operations.findOne({ _id: req.idempotencyKey }, primary);
    if (recorded) return recorded.outcome;
    await this.sleep(latencyOf(this.rules, this.random()));
    if ((op === 'authorize' || op === 'capture') && this.rules.hangUsers.includes(req.userId)) {
      throw new PaymentUnavailableError(
        'PAYMENTS.PSP_TIMEOUT',
        `simulated PSP did not answer ${op} of ${req.reference}`,
      );
    }
    if (this.random() < this.rules.transientErrorRate) {
      throw new PaymentUnavailableError(
        'PAYMENTS.PSP_UNAVAILABLE',
        `simulated PSP unavailable for ${op} of ${req.reference}`,
      );
    }
    const outcome = await this.execute(op, req);
    const record: OperationDoc = {
      _id: req.idempotencyKey,
      reference: req.reference,
      op,
      amount: req.amount,
      outcome,
      at: new Date(),
    };
    let answer = outcome;
    try {
      await this.operations.insertOne(record);
    } catch (e) {
      if (!(e instanceof MongoServerError && e.code === 11000)) throw e;
      answer = (await this.operations.findOne({ _id: req.idempotencyKey }, primary))?.outcome ?? outcome; // a concurrent call with the same key won
    }
    this.logger.info(
      { order_id: req.reference, op, key: req.idempotencyKey, outcome: answer.status },
      'payment simulator operation',
    );
    if (this.random() < this.rules.timeoutRate) {
      throw new PaymentUnavailableError(
        'PAYMENTS.PSP_TIMEOUT',
        `simulated PSP processed ${op} of ${req.reference} but the answer was lost`,
      );
    }
    return answer;
  }

  /** Optimistic read-decide-write on the reference document (version `v`). */
  private async execute(op: PaymentOperation, req: PaymentRequest): Promise<PspOutcome> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const doc = await this.payments.findOne({ _id: req.reference }, primary);
      const { next, outcome, late } = applyOperation(doc, op, req, this.rules, () => `auth_${randomUUID()}`);
      const landedLate = (): PspOutcome => {
        if (!late) return outcome;
        throw new PaymentUnavailableError(
          'PAYMENTS.PSP_TIMEOUT',
          `simulated PSP accepted ${op} of ${req.reference}; it lands late`,
        );
      };
      if (!next) return landedLate();
      const state = {
        status: next.status,
        amount: next.amount,
        authorization_id: next.authorization_id,
        decline_code: next.decline_code,
        pending_capture: next.pending_capture ?? false,
        user_id: req.userId,
        updated_at: new Date(),
      };
      if (doc) {
        const res = await this.payments.updateOne(
          { _id: req.reference, v: doc.v },
          { $set: state, $inc: { v: 1 } },
        );
        if (res.modifiedCount === 1) return landedLate();
      } else {
        try {
          await this.payments.insertOne({ _id: req.reference, v: 1, ...state });
          return outcome;
        } catch (e) {
          if (!(e instanceof MongoServerError && e.code === 11000)) throw e;
        }
      }
    }
    throw new PaymentUnavailableError(
      'PAYMENTS.PSP_UNAVAILABLE',
      `simulated PSP: too much contention on ${req.reference}`,
    );
  }
}
