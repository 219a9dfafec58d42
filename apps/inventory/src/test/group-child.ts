/**
 * Runs one group commit of the reservations service in a process of its own and stops for good at a
 * chosen point, so a test can SIGKILL it exactly there (the production code, plain classes, no test
 * hook in the service).
 * argv: mongoUrl dbName eventsTopic point json mode
 *   after-holds:  `reserveMany(json: ReserveStock payloads)` — every line held in the batch's
 *                 bulkWrite. `stages`: every order claimed (`reserving`), none moved to `reserved`, no
 *                 answer stored. `transaction`: all of it inside the open transaction, nothing
 *                 committed — the orders inserted `reserved` with their answers, the holds with
 *                 their ledger entries;
 *   after-status: `commitMany(json: order ids)` — every order's status changed, no stock document
 *                 moved. `stages`: `committed` with `pending: 'commit'` and its StockCommitted stored.
 *                 `transaction`: the same change, and every line sold with its ledger entries, inside
 *                 the open transaction, nothing committed. json
 *                 may also be `{ orders: order ids, reply: 'failure_only' }`: confirmed orders' sales,
 *                 no answer stored (ADR 0015 §3).
 *   mode:         INVENTORY_GROUP_COMMIT (`transaction` or `stages`; ADR 0015 §7).
 */
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { GroupCommitMode } from '../reservations/one-commit';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';
import { pauseForKill } from '@mw/testing';

type Point = 'after-holds' | 'after-status';

const [mongoUrl, dbName, eventsTopic, point, json, mode] = process.argv.slice(2) as [string, string, string, Point, string, GroupCommitMode];

class StopAt extends StockRepository {
  override async holdMany(...args: Parameters<StockRepository['holdMany']>): Promise<boolean> {
    const held = await super.holdMany(...args);
    if (point === 'after-holds') await pauseForKill(point);
    return held;
  }

  override async settleMany(...args: Parameters<StockRepository['settleMany']>): Promise<void> {
    if (point === 'after-status') await pauseForKill(point);
    return super.settleMany(...args);
  }

  /** Reached in `transaction` mode only: the stop comes after the sale too, with its ledger entries, inside the open transaction. */
  override async sellMany(...args: Parameters<StockRepository['sellMany']>): Promise<boolean> {
    const sold = await super.sellMany(...args);
    if (point === 'after-status') await pauseForKill(point);
    return sold;
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
    undefined,
    mode,
  );
  process.stdout.write('group-started\n');
  if (point === 'after-holds') await service.reserveMany(JSON.parse(json));
  else {
    const parsed = JSON.parse(json) as string[] | { orders: string[]; reply: 'always' | 'failure_only' };
    const orders = Array.isArray(parsed) ? parsed : parsed.orders;
    await service.commitMany(orders, undefined, Array.isArray(parsed) ? [] : orders.map(() => parsed.reply));
  }
  process.stdout.write('group-done\n'); // never reached: the test kills the process at the stop
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
