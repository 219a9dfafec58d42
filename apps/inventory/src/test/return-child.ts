/**
 * Returns one order's stock in a process of its own and stops for good at a chosen point, so a test
 * can SIGKILL it exactly there (the production code, plain classes, no test hook in the service).
 * argv: mongoUrl dbName eventsTopic orderId point
 *   after-status: the order is `returned` with `pending: 'return'` and its StockReturned stored; no stock document moved;
 *   after-apply:  the first line is back on sale on its stock document (with its return mark); the order does not record it.
 */
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { Line } from '../reservations/reservation';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';
import { pauseForKill } from '@mw/testing';

type Point = 'after-status' | 'after-apply';

const stop = (point: Point, orderId: string): Promise<never> => pauseForKill(`${point} ${orderId}`);

class StopAt extends StockRepository {
  constructor(
    db: ConstructorParameters<typeof StockRepository>[0],
    private readonly point: Point,
  ) {
    super(db);
  }

  override async returnCommitted(zone: string, line: Line, orderId: string, fence: number): Promise<boolean> {
    if (this.point === 'after-status') await stop(this.point, orderId);
    const applied = await super.returnCommitted(zone, line, orderId, fence);
    if (this.point === 'after-apply' && applied) await stop(this.point, orderId);
    return applied;
  }
}

async function main(): Promise<void> {
  const [mongoUrl, dbName, eventsTopic, orderId, point] = process.argv.slice(2) as [
    string,
    string,
    string,
    string,
    Point,
  ];
  const client = await createMongoClient(mongoUrl).connect();
  const db = client.db(dbName);
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const limits = { zones: ['MSK', 'SPB', 'EKB'], maxLines: 50, maxQtyPerLine: 1000 };
  const service = new ReservationsService(
    new ReservationsRepository(db),
    new StopAt(db, point),
    new InventoryEvents(eventsTopic),
    new OutboxNudge(),
    limits,
    logger,
  );
  process.stdout.write('return-started\n');
  await service.returnStock(orderId);
  process.stdout.write('return-done\n'); // never reached: the test kills the process at the stop
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
