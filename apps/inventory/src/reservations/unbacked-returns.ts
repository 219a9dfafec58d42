import type { Logger } from 'pino';
import { Counter, Gauge, type Registry } from 'prom-client';

/** What the tracker reports to: Prometheus in the service, nothing (or a spy) in tests. */
export interface UnbackedReturnsMetrics {
  /** Lines of returns found unbacked for the first time (by this process). */
  readonly found: Pick<Counter, 'inc'>;
  /** Lines of returns unbacked right now (the sweeper keeps retrying them). */
  readonly open: Pick<Gauge, 'set'>;
}

/** Remembered at most: beyond it a new unbacked line is still counted and logged, just not deduplicated. */
const MAX_TRACKED = 10_000;

/**
 * An "unbacked" return (ADR 0040): a returned order whose stock document does not hold the units
 * its sale committed. StockReturned was announced when the return was accepted, before the units
 * moved, so the order stays pending and every sweep retries it; without this the sweep logged an
 * error for it every few seconds forever. Here each line is logged once (error, with what the
 * operator must do) and counted (`inventory_unbacked_returns_found_total`), and the lines unbacked
 * right now are a gauge (`inventory_unbacked_returns`); when a line goes through after all (the
 * operator corrected the document), it is logged once more and leaves the gauge.
 */
export class UnbackedReturns {
  private readonly open = new Set<string>();

  constructor(
    private readonly logger: Pick<Logger, 'error' | 'info'>,
    private readonly metrics?: UnbackedReturnsMetrics,
  ) {}

  /** The tracker of a service process, its metrics in the process's registry. */
  static withRegistry(logger: Pick<Logger, 'error' | 'info'>, registry: Registry): UnbackedReturns {
    return new UnbackedReturns(logger, {
      found: new Counter({
        name: 'inventory_unbacked_returns_found_total',
        help: 'Lines of returned orders found unbacked (the stock document does not hold the sold units); see ADR 0040',
        registers: [registry],
      }),
      open: new Gauge({
        name: 'inventory_unbacked_returns',
        help: 'Lines of returned orders unbacked now, left pending and retried by every sweep (operator action: ADR 0040)',
        registers: [registry],
      }),
    });
  }

  /** A line could not be returned: the document does not hold its units. Logged and counted once. */
  unbacked(line: {
    order_id: string;
    product_id: string;
    zone: string;
    qty: number;
    committed: number | null;
  }): void {
    const key = `${line.order_id}:${line.product_id}`;
    if (this.open.has(key)) return;
    if (this.open.size < MAX_TRACKED) this.open.add(key);
    this.metrics?.found.inc();
    this.metrics?.open.set(this.open.size);
    this.logger.error(
      { ...line, operator_action: 'docs/adr/0040 "Unbacked returns"' },
      'return not applied: the stock document does not hold the sold units; the order stays pending until an operator corrects the document (logged once)',
    );
  }

  /** A line went back on sale (or was found recorded): if it was unbacked, it no longer is. */
  settled(orderId: string, productId: string): void {
    if (!this.open.delete(`${orderId}:${productId}`)) return;
    this.metrics?.open.set(this.open.size);
    this.logger.info({ order_id: orderId, product_id: productId }, 'unbacked return applied after all');
  }

  /** Lines unbacked now (tests, metrics). */
  get size(): number {
    return this.open.size;
  }
}
