import fc from 'fast-check';
import type { Line, ReservationDoc } from './reservation';
import type { StockReturnView } from './returns';
import { ReturnOrdersPort, ReturnStockPort, StockReturns } from './stock-returns';

const ORDER = '66f1c0ffee00000000000042';
const products = ['5eed00000000000000000001', '5eed00000000000000000002'];

/**
 * One stock document per line and the returned order, with exactly the semantics of the MongoDB
 * updates in StockRepository/ReservationsRepository (each call one atomic single-document step).
 * `otherReturn` is another order's return on the same document: it moves the fence.
 */
class World {
  readonly docs = new Map<
    string,
    { committed: number; available: number; fence: number; marks: Set<string>; applied: number }
  >();
  readonly recorded = new Set<string>();
  maxApplied = 0;

  constructor(
    readonly lines: Line[],
    others: number,
  ) {
    for (const l of lines)
      this.docs.set(l.product_id, {
        committed: l.qty + others,
        available: 0,
        fence: 0,
        marks: new Set(),
        applied: 0,
      });
  }

  view(productId: string, orderId: string): StockReturnView | null {
    const d = this.docs.get(productId);
    return d ? { fence: d.fence, marked: d.marks.has(orderId), committed: d.committed } : null;
  }
  /** `returnCommitted`: committed ≥ qty, the fence read, no mark of the order. */
  apply(line: Line, orderId: string, fence: number): boolean {
    const d = this.docs.get(line.product_id);
    if (!d || d.committed < line.qty || d.fence !== fence || d.marks.has(orderId)) return false;
    d.committed -= line.qty;
    d.available += line.qty;
    d.fence++;
    d.marks.add(orderId);
    d.applied++;
    this.maxApplied = Math.max(this.maxApplied, d.applied);
    return true;
  }
  /** Returns one unit sold to another order, if any is left; true when it moved one. */
  otherReturn(productId: string): boolean {
    const d = this.docs.get(productId)!;
    const own = this.lines.find((l) => l.product_id === productId)!.qty;
    if (d.committed - (d.applied > 0 ? 0 : own) <= 0) return false;
    d.committed--;
    d.available++;
    d.fence++;
    return true;
  }
  order(): ReservationDoc {
    const at = new Date(0);
    return {
      _id: ORDER,
      zone: 'MSK',
      lines: this.lines,
      status: 'returned',
      pending: 'return',
      returned_lines: [...this.recorded],
      expires_at: at,
      created_at: at,
      updated_at: at,
    };
  }
}

/** A processor (a consumer, a sweeper) running the real StockReturns; it stops before every store call until stepped. */
class Processor {
  ended = false;
  complete: boolean | undefined;
  private release: (() => void) | undefined;
  private arrived: () => void = () => undefined;
  private arrival: Promise<void>;

  constructor(world: World) {
    this.arrival = new Promise((r) => (this.arrived = r));
    const gate = () =>
      new Promise<void>((r) => {
        this.release = r;
        this.arrived();
      });
    const stock: ReturnStockPort = {
      returnView: async (_zone, productId, orderId) => (await gate(), world.view(productId, orderId)),
      returnCommitted: async (_zone, line, orderId, fence) => (
        await gate(),
        world.apply(line, orderId, fence)
      ),
      dropReturnMark: async (_zone, productId, orderId) => {
        await gate();
        world.docs.get(productId)?.marks.delete(orderId);
      },
    };
    const orders: ReturnOrdersPort = {
      get: async () => (await gate(), world.order()),
      recordReturnedLine: async (_id, productId) => {
        await gate();
        world.recorded.add(productId);
      },
    };
    void new StockReturns(orders, stock, { error: () => undefined, info: () => undefined })
      .applyAll(world.order())
      .then(
        (complete) => (this.complete = complete),
        () => (this.complete = false), // contended: the consumer would retry the command later
      )
      .finally(() => {
        this.ended = true;
        this.arrived();
      });
  }

  /** Waits until it stands before its first store call. */
  ready(): Promise<void> {
    return this.arrival;
  }

  /** Lets one store call through and waits until the next one (or the end). */
  async step(): Promise<void> {
    const release = this.release;
    if (this.ended || !release) return;
    this.release = undefined;
    this.arrival = new Promise((r) => (this.arrived = r));
    release();
    await this.arrival;
  }

  async finish(): Promise<void> {
    while (!this.ended) await this.step();
  }
}

type Event =
  | { kind: 'step'; p: number }
  | { kind: 'crash'; p: number }
  | { kind: 'spawn' }
  | { kind: 'other'; line: number };

const event: fc.Arbitrary<Event> = fc.oneof(
  { weight: 12, arbitrary: fc.nat(5).map((p) => ({ kind: 'step' as const, p })) },
  { weight: 1, arbitrary: fc.nat(5).map((p) => ({ kind: 'crash' as const, p })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'spawn' as const }) },
  { weight: 2, arbitrary: fc.nat(1).map((line) => ({ kind: 'other' as const, line })) },
);

/**
 * The "never twice" guard under every interleaving fast-check finds: processors reading stale
 * views and acting late, processors killed between any two store calls, new ones started at any
 * time (redeliveries, the sweeper), other orders' returns on the same documents. At no moment is a
 * line returned twice, and once a processor runs to the end after the chaos (the restart), every
 * line is returned exactly once, recorded on the order, and no mark is left.
 */
describe('returning an order’s lines: each unit exactly once', () => {
  it('holds under generated interleavings, crashes and late processors', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 }),
        fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 2 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(event, { maxLength: 60 }),
        async (lineCount, qtys, others, initial, events) => {
          const lines = products.slice(0, lineCount).map((product_id, i) => ({ product_id, qty: qtys[i]! }));
          const world = new World(lines, others);
          const procs: Processor[] = [];
          const spawn = async () => {
            const p = new Processor(world);
            procs.push(p);
            await p.ready();
          };
          for (let i = 0; i < initial; i++) await spawn();
          const live = () => procs.filter((p) => !p.ended);
          const crashed = new Set<Processor>();
          let othersMoved = 0;
          for (const e of events) {
            const running = live().filter((p) => !crashed.has(p));
            if (e.kind === 'spawn') await spawn();
            else if (e.kind === 'other') {
              if (world.otherReturn(lines[e.line % lines.length]!.product_id)) othersMoved++;
            } else if (running.length > 0) {
              const p = running[e.p % running.length]!;
              if (e.kind === 'crash') crashed.add(p);
              else await p.step();
            }
            expect(world.maxApplied).toBeLessThanOrEqual(1);
          }
          for (const p of live().filter((q) => !crashed.has(q))) await p.finish();
          const restart = new Processor(world);
          await restart.ready();
          await restart.finish();

          expect(restart.complete).toBe(true);
          expect(world.maxApplied).toBe(1);
          expect([...world.recorded].sort()).toEqual(lines.map((l) => l.product_id));
          for (const l of lines) {
            const d = world.docs.get(l.product_id)!;
            expect({ applied: d.applied, marks: [...d.marks] }).toEqual({ applied: 1, marks: [] });
          }
          const total = [...world.docs.values()].reduce((n, d) => n + d.available, 0);
          expect(total).toBe(lines.reduce((n, l) => n + l.qty, 0) + othersMoved);
        },
      ),
      { numRuns: 400 },
    );
  });
});
