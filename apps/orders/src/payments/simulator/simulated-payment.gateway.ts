import { randomUUID } from 'node:crypto';
import {
  AnyBulkWriteOperation,
  Collection,
  Db,
  MongoServerError,
  ReadPreference,
  WriteConcern,
} from 'mongodb';
import { duplicateKeyIndexes } from '@mw/persistence';
import type { Logger } from 'pino';
import { GroupCommit } from '@mw/platform';
import {
  AuthorizeResult,
  CaptureResult,
  PaymentGateway,
  PaymentOperation,
  PaymentRequest,
  PaymentStatus,
  PaymentUnavailableError,
  RefundResult,
  SaleResult,
  VoidResult,
} from '../payment-gateway';
import { applyOperation, latencyOf, PspOutcome, PspPayment, SimulatorRules } from './psp-rules';

/** One document per payment reference (order): the simulated PSP's ledger, with every operation performed on it. */
export const SIM_PAYMENTS = 'payment_sim_payments';
/**
 * A read-only view of {@link SIM_PAYMENTS}: one document per idempotency key (every authorization,
 * capture, void and refund the PSP performed), the shape tests and the chaos checker read.
 */
export const SIM_OPERATIONS = 'payment_sim_operations';

/** One performed operation, kept in its reference's document (so a call is one write). */
interface OperationRecord {
  key: string;
  op: PaymentOperation;
  amount: number;
  outcome: PspOutcome;
  at: Date;
}

/** `status` null: the reference was only ever answered "nothing to do" (a capture or refund of nothing). */
interface PaymentDoc extends Omit<PspPayment, 'status'> {
  _id: string;
  v: number;
  status: PspPayment['status'] | null;
  user_id: string;
  updated_at: Date;
  ops?: OperationRecord[];
}

export interface OperationDoc {
  _id: string;
  reference: string;
  op: PaymentOperation;
  amount: number;
  outcome: PspOutcome;
  at: Date;
}

/** The operations view: each reference's operations unwound into one document per idempotency key. */
const OPERATIONS_VIEW = [
  { $unwind: '$ops' },
  {
    $replaceWith: {
      _id: '$ops.key',
      reference: '$_id',
      op: '$ops.op',
      amount: '$ops.amount',
      outcome: '$ops.outcome',
      at: '$ops.at',
    },
  },
];

const majority = { writeConcern: new WriteConcern('majority') };
const primary = { readPreference: ReadPreference.primary };
const NAMESPACE_EXISTS = 48;

/**
 * A PSP simulator behind the PaymentGateway port, persisted in MongoDB (its own collection) so
 * idempotency holds across restarts and tests in another process can count the operations.
 * A repeated idempotency key returns the recorded outcome without doing anything.
 *
 * One call is one read (the reference's document: its state and its recorded keys) and one
 * majority write (the new state and the operation's record together, guarded by the version `v`);
 * a lost race reads again, where it may find its key recorded by the winner. Calls that overlap
 * share their round trips (issue 31): the reads waiting while one is in flight go as one `$in`
 * find, the writes as one unordered bulkWrite in which each keeps its own guard — a lone call still
 * goes at once. Which writes of a bulk lost is told per operation: each is an upsert whose filter
 * names the reference and its version, so a lost guard tries to insert an existing `_id` and fails
 * alone with a duplicate key (as `OrdersRepository.transitionMany`).
 */
export class SimulatedPaymentGateway implements PaymentGateway {
  private readonly payments: Collection<PaymentDoc>;
  private readonly reads = new GroupCommit<string, PaymentDoc | null>(async (references) => {
    const docs = await this.payments.find({ _id: { $in: [...new Set(references)] } }, primary).toArray();
    const byId = new Map(docs.map((d) => [d._id, d]));
    return references.map((r) => byId.get(r) ?? null);
  });
  private readonly writes = new GroupCommit<AnyBulkWriteOperation<PaymentDoc>, boolean>(async (ops) => {
    const won = ops.map(() => true);
    try {
      await this.payments.bulkWrite([...ops], { ordered: false });
    } catch (e) {
      for (const i of duplicateKeyIndexes(e)) won[i] = false;
    }
    return won;
  });

  constructor(
    private readonly db: Db,
    private readonly rules: SimulatorRules,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.payments = db.collection<PaymentDoc>(SIM_PAYMENTS, majority);
  }

  /**
   * The operations view. A database written before operations moved into the payment documents has
   * a collection by that name: its records are folded into their references first (identical
   * records once, so two instances starting together are harmless), then it is replaced.
   */
  async ensureIndexes(): Promise<void> {
    const [existing] = await this.db.listCollections({ name: SIM_OPERATIONS }, { nameOnly: false }).toArray();
    if (existing?.type === 'view') return;
    if (existing) {
      await this.db
        .collection(SIM_OPERATIONS)
        .aggregate([
          { $sort: { at: 1 } },
          {
            $group: {
              _id: '$reference',
              ops: { $push: { key: '$_id', op: '$op', amount: '$amount', outcome: '$outcome', at: '$at' } },
            },
          },
          { $set: { v: 0, status: null } },
          {
            $merge: {
              into: SIM_PAYMENTS,
              on: '_id',
              whenMatched: [{ $set: { ops: { $setUnion: [{ $ifNull: ['$ops', []] }, '$$new.ops'] } } }],
              whenNotMatched: 'insert',
            },
          },
        ])
        .toArray();
      await this.db.dropCollection(SIM_OPERATIONS).catch(() => false); // another instance dropped it first
    }
    await this.db
      .createCollection(SIM_OPERATIONS, { viewOn: SIM_PAYMENTS, pipeline: OPERATIONS_VIEW })
      .catch((e: unknown) => {
        if (!(e instanceof MongoServerError && e.code === NAMESPACE_EXISTS)) throw e;
      });
  }

  authorize(req: PaymentRequest): Promise<AuthorizeResult> {
    return this.perform('authorize', req) as Promise<AuthorizeResult>;
  }
  capture(req: PaymentRequest): Promise<CaptureResult> {
    return this.perform('capture', req) as Promise<CaptureResult>;
  }
  sale(req: PaymentRequest): Promise<SaleResult> {
    return this.perform('sale', req) as Promise<SaleResult>;
  }
  void(req: PaymentRequest): Promise<VoidResult> {
    return this.perform('void', req) as Promise<VoidResult>;
  }
  refund(req: PaymentRequest): Promise<RefundResult> {
    return this.perform('refund', req) as Promise<RefundResult>;
  }
  async status(reference: string): Promise<PaymentStatus | null> {
    return (
      (await this.payments.findOne({ _id: reference }, { ...primary, projection: { status: 1 } }))?.status ??
      null
    );
  }

  private async perform(op: PaymentOperation, req: PaymentRequest): Promise<PspOutcome> {
    let doc = await this.read(req.reference);
    const recorded = recordOf(doc, req.idempotencyKey);
    if (recorded) return recorded;
    await this.sleep(latencyOf(this.rules, this.random()));
    if (op !== 'void' && op !== 'refund' && this.rules.hangUsers.includes(req.userId)) {
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
    for (let attempt = 0; attempt < 10; attempt++) {
      const answer = await this.execute(op, req, doc);
      if (answer) {
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
      doc = await this.read(req.reference); // lost the race: a concurrent call on this reference won
      const won = recordOf(doc, req.idempotencyKey);
      if (won) return won; // … with the same key
    }
    throw new PaymentUnavailableError(
      'PAYMENTS.PSP_UNAVAILABLE',
      `simulated PSP: too much contention on ${req.reference}`,
    );
  }

  private read(reference: string): Promise<PaymentDoc | null> {
    return this.reads.add(reference);
  }

  /**
   * Decides on `doc` and writes the new state with the operation's record in one write guarded by
   * the version `v`. Null when the guard lost. A capture that lands late changes the state but is
   * not recorded (its key stays open: the caller's retry meets the same rule) and throws a timeout.
   */
  private async execute(
    op: PaymentOperation,
    req: PaymentRequest,
    doc: PaymentDoc | null,
  ): Promise<PspOutcome | null> {
    const current: PspPayment | null = doc?.status ? { ...doc, status: doc.status } : null;
    const { next, outcome, late } = applyOperation(
      current,
      op,
      req,
      this.rules,
      () => `auth_${randomUUID()}`,
    );
    const now = new Date();
    const state = next
      ? {
          status: next.status,
          amount: next.amount,
          authorization_id: next.authorization_id,
          decline_code: next.decline_code,
          pending_capture: next.pending_capture ?? false,
          user_id: req.userId,
          updated_at: now,
        }
      : {};
    const record: OperationRecord = { key: req.idempotencyKey, op, amount: req.amount, outcome, at: now };
    const won = await this.writes.add(
      doc
        ? {
            updateOne: {
              filter: { _id: req.reference, v: doc.v },
              update: {
                ...(next ? { $set: state } : {}),
                $inc: { v: 1 },
                ...(late ? {} : { $push: { ops: record } }),
              },
              upsert: true, // never inserts: the document was read; a lost guard is a duplicate key (see the class)
            },
          }
        : {
            insertOne: {
              document: {
                _id: req.reference,
                v: 1,
                status: null,
                amount: req.amount,
                authorization_id: null,
                decline_code: null,
                user_id: req.userId,
                updated_at: now,
                ...state,
                ops: late ? [] : [record],
              },
            },
          },
    );
    if (won && late)
      throw new PaymentUnavailableError(
        'PAYMENTS.PSP_TIMEOUT',
        `simulated PSP accepted ${op} of ${req.reference}; it lands late`,
      );
    return won ? outcome : null;
  }
}

const recordOf = (doc: PaymentDoc | null, key: string): PspOutcome | undefined =>
  doc?.ops?.find((o) => o.key === key)?.outcome;
