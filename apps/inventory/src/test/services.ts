import type { CommandStartedEvent } from 'mongodb';
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { InventoryEvents } from '../outbox/inventory-events';
import { OutboxNudge } from '../outbox/outbox.service';
import { GroupCommitMode } from '../reservations/one-commit';
import { ReservationsRepository } from '../reservations/reservations.repository';
import { ReservationsService } from '../reservations/reservations.service';
import { StockRepository } from '../stock/stock.repository';

/** Limits of the repository-level tests: the one zone MSK. */
export const TEST_LIMITS = { zones: ['MSK'], maxLines: 10, maxQtyPerLine: 100 };

/** The reservations service on real repositories, without a relay (answers stay in the outbox) and silent. */
export const reservationsService = (
  reservations: ReservationsRepository,
  stock: StockRepository,
  groupCommit: GroupCommitMode = 'transaction',
): ReservationsService =>
  new ReservationsService(
    reservations,
    stock,
    new InventoryEvents('test.events'),
    new OutboxNudge(),
    TEST_LIMITS,
    pino({ level: 'silent' }),
    undefined,
    groupCommit,
  );

/**
 * Inventory's repositories and reservations service on a private database of the test replica set,
 * through a client with command monitoring: `counted(run)` answers the MongoDB commands `run` sent
 * (`<command> <collection>`, and a transaction's `commitTransaction` / `abortTransaction`), each one
 * round trip. The service's group paths write as `groupCommit` says. Registers its own setup and
 * teardown hooks.
 */
export function countedInventory(prefix: string, groupCommit: GroupCommitMode = 'transaction') {
  const client = createMongoClient(testEnv().mongoUrl, { monitorCommands: true });
  const db = client.db(uniqueName(prefix));
  const stock = new StockRepository(db);
  const reservations = new ReservationsRepository(db);
  const service = reservationsService(reservations, stock, groupCommit);
  const seen: string[] = [];
  const record = (e: CommandStartedEvent) => {
    if (e.commandName === 'commitTransaction' || e.commandName === 'abortTransaction') seen.push(e.commandName);
    else if (e.databaseName === db.databaseName) seen.push(`${e.commandName} ${String(e.command[e.commandName])}`);
  };
  beforeAll(async () => {
    await client.connect();
    await stock.ensureIndexes();
    await reservations.ensureIndexes();
    client.on('commandStarted', record);
  });
  afterAll(async () => {
    client.off('commandStarted', record);
    await db.dropDatabase();
    await client.close();
  });
  const counted = async (run: () => Promise<void>): Promise<string[]> => {
    seen.splice(0);
    await run();
    return seen.splice(0);
  };
  return { client, db, stock, reservations, service, counted };
}
