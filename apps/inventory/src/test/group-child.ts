/**
 * Runs one group commit of the reservations service in a process of its own and stops for good at a
 * chosen point, so a test can SIGKILL it exactly there (the production code, plain classes, no test
 * hook in the service).
 * argv: mongoUrl dbName eventsTopic point json
 *   after-holds:  `reserveMany(json: ReserveStock payloads)` — every order claimed and every line held
 *                 in the batch's bulkWrite; no order moved to `reserved`, no answer stored;
 *   after-status: `commitMany(json: order ids)` — every order `committed` with `pending: 'commit'` and
 *                 its StockCommitted stored; no stock document moved.
 */
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';
import { pauseForKill } from '@mw/testing';

type Point = 'after-holds' | 'after-status';

const [mongoUrl, dbName, eventsTopic, point, json] = process.argv.slice(2) as [string, string, string, Point, string];

class StopAt extends StockRepository {
  override async holdMany(orders: Parameters<StockRepository['holdMany']>[0]): Promise<boolean> {
    const held = await super.holdMany(orders);
    if (point === 'after-holds') await pauseForKill(point);
    return held;
  }

  override async settleMany(...args: Parameters<StockRepository['settleMany']>): Promise<void> {
    if (point === 'after-status') await pauseForKill(point);
    return super.settleMany(...args);
  }
}

async function main(): Promise<void> {
  const client = await createMongoClient(mongoUrl).connect();
  const db = client.db(dbName);
  const service = new ReservationsService(
    new ReservationsRepository(db),
    new StopAt(db),
    new InventoryEvents(eventsTopic),
    new OutboxNudge(),
    { zones: ['MSK', 'SPB', 'EKB'], maxLines: 50, maxQtyPerLine: 1000 },
    pino({ level: 'warn' }, pino.destination(2)),
  );
  process.stdout.write('group-started\n');
  if (point === 'after-holds') await service.reserveMany(JSON.parse(json));
  else await service.commitMany(JSON.parse(json));
  process.stdout.write('group-done\n'); // never reached: the test kills the process at the stop
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
