import type { Logger } from 'pino';
import { PayloadOf } from '@mw/contracts';
import { AppError, assertUnreachable } from '@mw/platform';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { StockRepository } from '../stock/stock.repository';
import { holdOf, stockKey } from '../stock/stock';
import {
  Line,
  Problem,
  ReservationDoc,
  ReserveLimits,
  Shortage,
  decideFailedCommit,
  newReservation,
  ownerOfHold,
  rejectionCodeOf,
  resumedExpiry,
  settledAsOf,
  undoKindOf,
  grantedHoldSeconds,
  validateReserve,
} from './reservation';
import { GroupCommitMode, OneCommit } from './one-commit';
import { ReservationsRepository } from './reservations.repository';
import { NEVER_SOLD, ReturnFailureCode, decideReturn } from './returns';
import { StockReturns } from './stock-returns';
import { UnbackedReturns } from './unbacked-returns';

type ReserveCommand = PayloadOf<'inventory.commands.v1', 'ReserveStock'>;
/** How a CommitStock is answered: `failure_only` is a confirmed order's sale, which orders does not wait for (ADR 0015 §3). */
export type CommitReply = NonNullable<PayloadOf<'inventory.commands.v1', 'CommitStock'>['reply']>;

/** Whether a sale stores StockCommitted: every CommitStock but a confirmed order's (`failure_only`). */
const answersSale = (reply: CommitReply | undefined): boolean => reply !== 'failure_only';

/** Runs the work of a batch's i-th command in that command's trace (`BatchContext.within`). */
export type Within = <R>(index: number, fn: () => R) => R;

/**
 * The saga participant: reserve all lines of an order or none, release, commit, expire, and return
 * the units of a sold order. Every step is a conditional update, so a redelivered command, a second
 * instance or a resumed crash converges on the same state and the same single answer per order.
 */
export class ReservationsService {
  private readonly returns: StockReturns;
  /** Called with each expiry this process gives a reservation: the sweeper must run by then (it sleeps until its earliest one). */
  onExpirySet: (at: Date) => void = () => undefined;
  /** Lines this process last found short: their next ReserveStock reads before it claims (fast rejection). */
  private readonly shortNow = new ShortLines();
  private readonly oneCommit: OneCommit | null;

  constructor(
    private readonly reservations: ReservationsRepository,
    private readonly stock: StockRepository,
    private readonly events: InventoryEvents,
    private readonly outbox: OutboxNudge,
    private readonly limits: ReserveLimits,
    private readonly logger: Logger,
    unbackedReturns: UnbackedReturns = new UnbackedReturns(logger),
    /** How the group paths write (INVENTORY_GROUP_COMMIT, ADR 0015 §7). */
    groupCommit: GroupCommitMode = 'transaction',
  ) {
    this.returns = new StockReturns(reservations, stock, logger, unbackedReturns);
    this.oneCommit = groupCommit === 'transaction' ? new OneCommit(reservations.db.client) : null;
  }

  async reserve(cmd: ReserveCommand): Promise<void> {
    const problem = validateReserve(cmd, this.limits);
    if (problem) return this.rejectInvalid(cmd.order_id, cmd.zone, problem);
    const now = new Date();
    const fresh = newReservation(cmd, new Date(now.getTime() + this.holdSecondsOf(cmd) * 1000), now);
    // No read before the holds: their guards decide. Only for a line this process last found short
    // (a sold-out hot product) the old fast path pays: one primary read and one insert that stores
    // the rejection with its answer. Nothing is decremented there, so nothing can oversell.
    if (this.shortNow.any(fresh.zone, fresh.lines) && (await this.rejectIfShortNow(fresh))) return;
    const { created, doc } = await this.reservations.claim(fresh);
    if (!created && doc.tombstone) return this.rejectLate(doc._id);
    if (!created && doc.status !== 'reserving') return; // a duplicate: the order already has its answer
    await this.complete(doc, created);
  }

  /**
   * Group commit of ReserveStock (ADR 0012 §4, ADR 0015 §7): the orders of a consumed batch in one
   * majority commit whatever their number — one transaction inserting them `reserved` with their
   * StockReserved and taking every line's hold (each with the single path's guard): all of it or,
   * if a line misses, an order exists or another writer conflicts, nothing. Then, and in `stages`
   * mode, the staged path: one insert of the claims, one bulkWrite of the holds, one bulkWrite of
   * the `reserving → reserved` transitions, each step resumable. Anything off the common path takes
   * the single path, which converges from any state: an invalid command, a line last found short,
   * an order that exists (`reserve`); a batch in which some line missed (each order through
   * `complete`, which finds the lines the bulk held for it); a transition that lost its guard
   * (`reconcile`). `within(i, fn)` runs the work of the i-th command in its trace, so each answer
   * continues its command's trace.
   */
  async reserveMany(cmds: readonly ReserveCommand[], within: Within = (_, fn) => fn()): Promise<void> {
    const now = new Date();
    const single: number[] = [];
    const fresh = new Map<string, { index: number; doc: ReservationDoc }>();
    for (const [index, cmd] of cmds.entries()) {
      const id = cmd.order_id.toLowerCase();
      if (validateReserve(cmd, this.limits) || fresh.has(id)) {
        single.push(index);
        continue;
      }
      const doc = newReservation(cmd, new Date(now.getTime() + this.holdSecondsOf(cmd) * 1000), now);
      if (this.shortNow.any(doc.zone, doc.lines)) single.push(index);
      else fresh.set(id, { index, doc });
    }
    const group = [...fresh.values()];
    if (group.length > 0 && !(await this.reserveInOneCommit(group, within))) {
      const created = await this.reservations.claimMany(group.map((f) => f.doc));
      for (const f of group) if (!created.has(f.doc._id)) single.push(f.index);
      const claimed = group.filter((f) => created.has(f.doc._id));
      if (claimed.length > 0) await this.finishReserving(claimed, within);
    }
    for (const index of single.sort((a, b) => a - b)) await within(index, () => this.reserve(cmds[index]!));
  }

  /**
   * The group's orders `reserved`, with their answers and every line held, in one transaction
   * (ADR 0015 §7). No `reserving` state exists on this path: a crash before the commit leaves
   * nothing (the redelivery starts over), after it everything. False: nothing was written.
   */
  private async reserveInOneCommit(group: readonly { index: number; doc: ReservationDoc }[], within: Within): Promise<boolean> {
    if (!this.oneCommit) return false;
    // each answer and its outbox entry built in its command's trace (the entry carries the traceparent)
    const orders = group.map((g) =>
      within(g.index, () =>
        this.reservations.answered({ ...g.doc, status: 'reserved' }, this.reservedAnswer(g.doc, g.doc.expires_at)),
      ),
    );
    const holds = holdsOf(group.map((g) => g.doc));
    const committed = await this.oneCommit.run(
      async (session) => (await this.reservations.insertAnswered(orders, session)) && (await this.stock.holdMany(holds, session)),
    );
    if (!committed) return false;
    this.stock.activity.changed();
    for (const { doc: d } of group) for (const line of d.lines) this.shortNow.note(d.zone, line.product_id, false);
    this.onExpirySet(new Date(Math.min(...group.map((g) => g.doc.expires_at.getTime()))));
    this.outbox.nudge();
    return true;
  }

  /** The hold a command gets: what it asks, at most INVENTORY_MAX_HOLD_SECONDS (said in the log when cut). */
  private holdSecondsOf(cmd: ReserveCommand): number {
    const holdSeconds = grantedHoldSeconds(cmd.hold_seconds, this.limits);
    if (holdSeconds < cmd.hold_seconds) {
      this.logger.warn({ order_id: cmd.order_id, requested_hold_seconds: cmd.hold_seconds, hold_seconds: holdSeconds }, 'ReserveStock asks for a longer hold than INVENTORY_MAX_HOLD_SECONDS: held for the maximum');
    }
    return holdSeconds;
  }

  private async finishReserving(claimed: readonly { index: number; doc: ReservationDoc }[], within: Within): Promise<void> {
    const docs = claimed.map((c) => c.doc);
    const held = await this.stock.holdMany(holdsOf(docs));
    if (!held) {
      for (const c of claimed) await within(c.index, () => this.complete(c.doc, true));
      return;
    }
    for (const d of docs) for (const line of d.lines) this.shortNow.note(d.zone, line.product_id, false);
    const ops = claimed.map((c) =>
      within(c.index, () =>
        this.reservations.transitionOp(
          c.doc._id,
          ['reserving'],
          { status: 'reserved', expires_at: c.doc.expires_at },
          this.reservedAnswer(c.doc, c.doc.expires_at),
        ),
      ),
    );
    const moved = await this.reservations.transitionMany(ops);
    if (moved > 0) {
      this.onExpirySet(new Date(Math.min(...docs.map((d) => d.expires_at.getTime()))));
      this.outbox.nudge();
    }
    // someone else finalized some of them (a release overtook, or a resumed copy): as on the single path
    if (moved < ops.length) for (const c of claimed) await within(c.index, () => this.reconcile(c.doc._id));
  }

  /**
   * Group commit of CommitStock: one read of the orders, then one transaction (ADR 0015 §7) moving
   * them `reserved → committed` (each guarded by status and expiry, carrying StockCommitted unless a
   * confirmed order's sale) and selling every line, one update per stock document — all of it, or
   * nothing if a guard misses or another writer conflicts. Then, and in `stages` mode, the staged
   * path: the transitions with `pending: 'commit'`, one ordered bulkWrite selling every line, one
   * update clearing `pending`. An order not plainly reserved and unexpired takes the single path
   * (`commit`: duplicates, expiry, failures); if a transition loses its guard, every order of the
   * group does (each step there is idempotent).
   */
  async commitMany(
    orderIds: readonly string[],
    within: Within = (_, fn) => fn(),
    replies: readonly CommitReply[] = [],
  ): Promise<void> {
    const ids = orderIds.map((id) => id.toLowerCase());
    const now = new Date();
    const docs = new Map((await this.reservations.findMany(ids)).map((d) => [d._id, d]));
    const single: number[] = [];
    const ready: { index: number; doc: ReservationDoc }[] = [];
    const seen = new Set<string>();
    for (const [index, id] of ids.entries()) {
      const doc = docs.get(id);
      if (!seen.has(id) && doc?.status === 'reserved' && !doc.pending && doc.expires_at > now) ready.push({ index, doc });
      else single.push(index);
      seen.add(id);
    }
    if (ready.length > 0 && !(await this.sellInOneCommit(ready, now, within, replies))) {
      const ops = this.saleOps(ready, now, within, replies, { status: 'committed', pending: 'commit' });
      const moved = await this.reservations.transitionMany(ops);
      if (moved > 0 && ready.some((r) => answersSale(replies[r.index]))) this.outbox.nudge();
      if (moved < ops.length) single.push(...ready.map((r) => r.index));
      else {
        await this.stock.settleMany(
          ready.map((r) => ({ zone: r.doc.zone, lines: r.doc.lines, orderId: r.doc._id })),
          'commit',
        );
        await this.reservations.clearPendingMany(ready.map((r) => r.doc._id), 'commit');
      }
    }
    for (const index of single.sort((a, b) => a - b)) await within(index, () => this.commit(ids[index]!, replies[index]));
  }

  /**
   * The group's sales in one transaction: the `reserved → committed` transitions (no `pending`: the
   * stock moves in the same commit) and every order's hold sold on its stock document. A crash before
   * the commit leaves every order reserved (the redelivery sells it), after it sold. False: nothing
   * was written.
   */
  private async sellInOneCommit(
    ready: readonly { index: number; doc: ReservationDoc }[],
    now: Date,
    within: Within,
    replies: readonly CommitReply[],
  ): Promise<boolean> {
    if (!this.oneCommit) return false;
    const ops = this.saleOps(ready, now, within, replies, { status: 'committed' });
    const sales = ready.map((r) => ({ zone: r.doc.zone, lines: r.doc.lines, orderId: r.doc._id }));
    const committed = await this.oneCommit.run(
      async (session) =>
        (await this.reservations.transitionMany(ops, session)) === ops.length && (await this.stock.sellMany(sales, session)),
    );
    if (!committed) return false;
    this.stock.activity.changed();
    if (ready.some((r) => answersSale(replies[r.index]))) this.outbox.nudge();
    return true;
  }

  /** StockReserved of an order held until `expiresAt`. */
  private reservedAnswer(doc: ReservationDoc, expiresAt: Date) {
    return this.events.build('StockReserved', { order_id: doc._id, zone: doc.zone, lines: doc.lines, expires_at: expiresAt.toISOString() });
  }

  /**
   * The `reserved → committed` transitions of a sale group (guarded by the expiry), each with its
   * StockCommitted unless a confirmed order's sale, built in its command's trace.
   */
  private saleOps(
    ready: readonly { index: number; doc: ReservationDoc }[],
    now: Date,
    within: Within,
    replies: readonly CommitReply[],
    set: { status: 'committed'; pending?: 'commit' },
  ) {
    return ready.map((r) =>
      within(r.index, () =>
        this.reservations.transitionOp(
          r.doc._id,
          ['reserved'],
          set,
          answersSale(replies[r.index]) ? this.events.build('StockCommitted', { order_id: r.doc._id }) : null,
          { expires_at: { $gt: now } },
        ),
      ),
    );
  }

  private async rejectIfShortNow(doc: ReservationDoc): Promise<boolean> {
    const stockDocs = await this.stock.findMany(
      doc.lines.map((l) => l.product_id),
      doc.zone,
    );
    const byProduct = new Map(stockDocs.map((d) => [d.product_id, d]));
    const shortages: (Shortage & { unknown: boolean })[] = [];
    for (const line of doc.lines) {
      const d = byProduct.get(line.product_id);
      if (d && holdOf(d, doc._id)) continue; // a redelivery of an order already holding this line
      if (!d || d.available < line.qty)
        shortages.push({
          product_id: line.product_id,
          requested: line.qty,
          available: d?.available ?? 0,
          unknown: !d,
        });
    }
    if (shortages.length === 0) return false;
    const rejection = {
      code: rejectionCodeOf(shortages),
      shortages: shortages.map(({ unknown: _u, ...s }) => s),
    };
    const rejected = this.events.build('StockRejected', { order_id: doc._id, ...rejection });
    if (!(await this.reservations.insertClosed({ ...doc, status: 'rejected', rejection }, rejected)))
      return false; // the order exists: usual path
    this.outbox.nudge();
    return true;
  }

  /** A ReserveStock overtaken by the order's ReleaseStock/CommitStock (reordering): rejected once, nothing held. */
  private async rejectLate(orderId: string): Promise<void> {
    const rejection = {
      code: 'INVENTORY.RESERVATION_RELEASED' as const,
      message: 'the order was released before it was reserved',
      shortages: [],
    };
    const rejected = this.events.build('StockRejected', { order_id: orderId, ...rejection });
    if (await this.reservations.rejectLateReserve(orderId, rejection, rejected)) this.outbox.nudge();
  }

  /**
   * Takes the holds of a `reserving` order and finalizes it; safe to resume after a crash. `fresh`:
   * the order was claimed by this call; otherwise it is a resume (sweeper, redelivery) and gets a
   * fresh expiry. A line already settled means the order moved on while this processor worked on
   * an old copy: it stops, holds nothing more and gives back what it took.
   */
  async complete(doc: ReservationDoc, fresh = false): Promise<void> {
    const expiresAt = fresh ? doc.expires_at : resumedExpiry(doc, new Date());
    const outcomes = await this.stock.holdAll(doc.zone, doc.lines, doc._id, expiresAt);
    const shortages: (Shortage & { unknown: boolean })[] = [];
    for (const [i, line] of doc.lines.entries()) {
      const outcome = outcomes[i]!;
      this.shortNow.note(doc.zone, line.product_id, !outcome.held && !('settled' in outcome));
      if ('settled' in outcome) {
        this.logger.warn(
          { order_id: doc._id, product_id: line.product_id, settled: outcome.settled },
          'stale reservation work stopped: the order is already settled',
        );
        return this.reconcile(doc._id);
      }
      if (!outcome.held)
        shortages.push({
          product_id: line.product_id,
          requested: line.qty,
          available: outcome.available,
          unknown: outcome.unknown,
        });
    }
    // A fresh order that held no line needs no undo work (saves round trips on a sold-out product).
    if (shortages.length > 0)
      return this.rejectShort(doc, shortages, fresh && outcomes.every((o) => !o.held));
    const reserved = this.reservedAnswer(doc, expiresAt);
    if (
      await this.reservations.transition(
        doc._id,
        ['reserving'],
        { status: 'reserved', expires_at: expiresAt },
        reserved,
      )
    ) {
      this.onExpirySet(expiresAt);
      return this.outbox.nudge();
    }
    await this.reconcile(doc._id); // someone else finalized (a release overtook us, or a resumed copy)
  }

  async release(orderId: string, attempt = 0): Promise<void> {
    const id = orderId.toLowerCase();
    const released = this.events.build('StockReleased', { order_id: id, reason: 'compensation' });
    const releasing = await this.reservations.transitionReturning(
      id,
      ['reserved', 'reserving'],
      { status: 'released', pending: 'undo', release_reason: 'compensation' },
      released,
    );
    if (releasing) {
      this.outbox.nudge();
      return this.settleDoc(releasing);
    }
    const doc = await this.reservations.get(id);
    if (!doc) {
      // Release of an unknown order succeeds as a no-op; the tombstone also stops a late ReserveStock.
      const inserted = await this.reservations.insertClosed(closed(id, 'released'), released);
      if (inserted) return this.outbox.nudge();
      if (attempt < 2) return this.release(id, attempt + 1); // a reservation was created meanwhile
      return;
    }
    if (doc.status === 'rejected' && (await this.reservations.markReleaseAnswered(id, released)))
      return this.outbox.nudge();
    if (doc.status === 'committed' || doc.status === 'returned')
      this.logger.warn(
        { order_id: id, status: doc.status },
        'ReleaseStock of a sold order ignored: the sale is final (a return is ReturnStock)',
      );
    if (doc.pending) await this.settle(id); // finish work a crash left behind; otherwise a duplicate
  }

  /**
   * CommitStock: the hold becomes a sale (`reserved → committed`, guarded by the expiry), or the
   * failure is recorded and answered once. A confirmed order's sale (`reply: 'failure_only'`, ADR
   * 0015 §3) stores no StockCommitted: orders waits for none.
   */
  async commit(orderId: string, reply: CommitReply = 'always', attempt = 0): Promise<void> {
    const id = orderId.toLowerCase();
    const now = new Date();
    const answer = answersSale(reply);
    const committing = await this.reservations.transitionReturning(
      id,
      ['reserved'],
      { status: 'committed', pending: 'commit' },
      answer ? this.events.build('StockCommitted', { order_id: id }) : null,
      { expires_at: { $gt: now } },
    );
    if (committing) {
      if (answer) this.outbox.nudge();
      return this.settleDoc(committing);
    }
    const doc = await this.reservations.get(id);
    const decision = decideFailedCommit(doc, now);
    switch (decision.kind) {
      case 'duplicate':
        if (doc?.pending) await this.settle(id);
        return;
      case 'in-progress':
        throw new AppError(
          'INVENTORY.RESERVATION_IN_PROGRESS',
          'unavailable',
          `order ${id} is still being reserved; retrying`,
        );
      case 'expire-then-fail':
        await this.expire(id, now);
        if (attempt > 2)
          throw new AppError(
            'INVENTORY.RESERVATION_IN_PROGRESS',
            'unavailable',
            `order ${id} changed during commit; retrying`,
          );
        return this.commit(id, reply, attempt + 1);
      case 'fail': {
        const failed = this.events.build('StockCommitFailed', { order_id: id, code: decision.code });
        const stored = decision.tombstone
          ? await this.reservations.insertClosed(
              { ...closed(id, 'released'), commit_failure: decision.code },
              failed,
            )
          : await this.reservations.markCommitFailure(id, decision.code, failed);
        if (stored) this.outbox.nudge();
        else if (decision.tombstone && attempt < 2) return this.commit(id, reply, attempt + 1);
        return;
      }
    }
  }

  /** Expires a reserved order whose hold time has passed (the sweeper, or a late commit). */
  async expire(orderId: string, now = new Date()): Promise<void> {
    const released = this.events.build('StockReleased', { order_id: orderId, reason: 'expired' });
    const expiring = await this.reservations.transitionReturning(
      orderId,
      ['reserved'],
      { status: 'expired', pending: 'undo', release_reason: 'expired' },
      released,
      { expires_at: { $lte: now } },
    );
    if (expiring) {
      this.outbox.nudge();
      await this.settleDoc(expiring);
    }
  }

  /**
   * ReturnStock: a sold order's units go back on sale. `committed → returned` with `pending: 'return'`
   * and StockReturned in one update, then each line on its stock document, then `pending` cleared.
   * Repeated: answered StockReturned again, nothing moves. Never sold or unknown: StockReturnFailed.
   */
  async returnStock(orderId: string, attempt = 0): Promise<void> {
    const id = orderId.toLowerCase();
    const doc = await this.reservations.get(id);
    const decision = decideReturn(doc);
    const returned = () =>
      this.events.build('StockReturned', { order_id: id, zone: doc?.zone ?? '', lines: doc?.lines ?? [] });
    switch (decision.kind) {
      case 'return': {
        const returning = await this.reservations.transitionReturning(
          id,
          ['committed'],
          { status: 'returned', pending: 'return', return_reason: 'cancelled_by_customer' },
          returned(),
          { pending: { $exists: false } },
        );
        if (returning) {
          this.outbox.nudge();
          return this.settleDoc(returning);
        }
        return this.returnAgain(id, attempt); // it moved meanwhile (a duplicate on another path): decide again
      }
      case 'finish-commit':
        await this.settle(id);
        return this.returnAgain(id, attempt);
      case 'repeat':
        if (doc?.pending) await this.settle(id); // finish what a crash left behind before answering again
        if (await this.reservations.answer(id, { status: 'returned' }, returned())) this.outbox.nudge();
        return;
      case 'fail': {
        const stored = await this.answerReturnFailure(id, decision.code, decision.tombstone);
        if (stored) return this.outbox.nudge();
        return this.returnAgain(id, attempt);
      }
      default:
        return assertUnreachable(decision);
    }
  }

  private returnAgain(id: string, attempt: number): Promise<void> {
    if (attempt >= 3)
      throw new AppError(
        'INVENTORY.RESERVATION_IN_PROGRESS',
        'unavailable',
        `order ${id} changed during its return; retrying`,
      );
    return this.returnStock(id, attempt + 1);
  }

  /** StockReturnFailed stored while the order still is what the decision saw; false if it moved. */
  private answerReturnFailure(id: string, code: ReturnFailureCode, tombstone: boolean): Promise<boolean> {
    const failed = this.events.build('StockReturnFailed', { order_id: id, code });
    if (tombstone) return this.reservations.insertClosed(closed(id, 'released'), failed); // also stops a late ReserveStock
    const state =
      code === 'INVENTORY.NOT_COMMITTED'
        ? { status: { $in: [...NEVER_SOLD] }, tombstone: { $ne: true } }
        : { tombstone: true };
    return this.reservations.answer(id, state, failed);
  }

  /** Applies the pending work of an order to its stock documents, then clears it. Idempotent. */
  async settle(orderId: string): Promise<void> {
    await this.settleDoc(await this.reservations.get(orderId));
  }

  /**
   * `settle` of the order as a write just left it (no second read): the lines of a sale or an undo
   * in one bulkWrite (`StockRepository.settleAll`), a return line by line (its fence protocol), then
   * `pending` cleared. A copy that is out of date is harmless: every stock write is guarded by the
   * hold and the settled memory, and the clear by `pending`.
   */
  private async settleDoc(doc: ReservationDoc | null): Promise<void> {
    if (!doc?.pending) return;
    if (doc.pending === 'return') {
      if (!(await this.returns.applyAll(doc))) return; // a line the document cannot back: left pending, reported
    } else {
      await this.stock.settleAll(
        doc.zone,
        doc.lines,
        doc._id,
        doc.pending === 'commit' ? 'commit' : undoKindOf(doc.status),
      );
    }
    await this.reservations.clearPending(doc._id, doc.pending);
  }

  /**
   * After losing a finalize race (or finding the order settled): holds this processor may have taken
   * go back unless they are the order's — a reserved order's holds, or a sale still being applied.
   * A committed order whose sale is applied owns no hold any more: one found is stray and goes back.
   */
  private async reconcile(orderId: string): Promise<void> {
    const doc = await this.reservations.get(orderId);
    const owner = ownerOfHold(doc);
    if (!doc || owner === 'live' || owner === 'selling' || owner === 'unknown') return;
    for (const line of doc.lines) {
      const returned = await this.stock.releaseHold(
        doc.zone,
        line,
        doc._id,
        undoKindOf(doc.status),
        settledAsOf(doc),
      );
      if (returned && owner === 'stray')
        this.logger.warn(
          { order_id: orderId, product_id: line.product_id },
          'stray hold of a sold order returned',
        );
    }
  }

  private async rejectShort(
    doc: ReservationDoc,
    shortages: readonly (Shortage & { unknown: boolean })[],
    nothingHeld: boolean,
  ): Promise<void> {
    const rejection = {
      code: rejectionCodeOf(shortages),
      shortages: shortages.map(({ unknown: _u, ...s }) => s),
    };
    const rejected = this.events.build('StockRejected', { order_id: doc._id, ...rejection });
    const rejecting = await this.reservations.transitionReturning(
      doc._id,
      ['reserving'],
      { status: 'rejected', rejection, ...(nothingHeld ? {} : { pending: 'undo' as const }) },
      rejected,
    );
    if (rejecting) {
      this.outbox.nudge();
      return this.settleDoc(rejecting);
    }
    await this.reconcile(doc._id);
  }

  /** An order whose command breaks a business rule: answered once with a code, nothing held. */
  async rejectInvalid(orderId: string, zone: unknown, problem: Problem): Promise<void> {
    const id = orderId.toLowerCase();
    const rejection = { code: problem.code, message: problem.message, shortages: [] };
    const rejected = this.events.build('StockRejected', { order_id: id, ...rejection });
    const inserted = await this.reservations.insertClosed(
      { ...closed(id, 'rejected'), zone: typeof zone === 'string' ? zone.slice(0, 8) : '', rejection },
      rejected,
    );
    if (inserted) this.outbox.nudge();
    this.logger.info(
      { order_id: id, code: problem.code, duplicate: !inserted },
      'reservation rejected: invalid command',
    );
  }

  get(orderId: string): Promise<ReservationDoc | null> {
    return this.reservations.get(orderId.toLowerCase());
  }
}

/** (product, zone) pairs last found short here, bounded; a hold that succeeds forgets its pair. */
class ShortLines {
  private static readonly KEEP = 10_000;
  private readonly keys = new Set<string>();

  any(zone: string, lines: readonly Line[]): boolean {
    return lines.some((l) => this.keys.has(stockKey(l.product_id, zone)));
  }

  note(zone: string, productId: string, short: boolean): void {
    const key = stockKey(productId, zone);
    if (!short) this.keys.delete(key);
    else {
      if (this.keys.size >= ShortLines.KEEP) this.keys.clear();
      this.keys.add(key);
    }
  }
}

/** The holds of orders as `StockRepository.holdMany` takes them: every line until the order's expiry. */
const holdsOf = (docs: readonly ReservationDoc[]) =>
  docs.map((d) => ({ zone: d.zone, lines: d.lines, orderId: d._id, expiresAt: d.expires_at }));

function closed(id: string, status: 'released' | 'rejected'): ReservationDoc {
  const now = new Date();
  return {
    _id: id,
    zone: '',
    lines: [],
    status,
    expires_at: now,
    created_at: now,
    updated_at: now,
    tombstone: status === 'released',
  };
}
