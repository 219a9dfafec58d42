import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { oid } from '../test/harness';
import { newReservation } from './reservation';
import { ReservationsRepository } from './reservations.repository';

/**
 * The staged reserve's claim of a group (`claimMany`, ADR 0012 §4) on the real replica set: an
 * order that exists is left out, and only that. A write concern error beside the duplicate (the
 * claims applied on the primary, not acknowledged by a majority: they could roll back) fails the
 * whole claim instead of passing the new orders on as claimed — the batch is then not acknowledged
 * and comes again.
 */
describe('ReservationsRepository.claimMany', () => {
  const client = createMongoClient(testEnv().mongoUrl);
  const dbName = uniqueName('inventory_claim_many');
  const repo = (writeConcern?: { w: number | 'majority' }) =>
    new ReservationsRepository(client.db(dbName, writeConcern ? { writeConcern } : {}));
  const doc = (order: string) =>
    newReservation({ order_id: order, zone: 'MSK', lines: [{ product_id: oid(0x5c, 1), qty: 1 }] }, new Date(Date.now() + 600_000), new Date());

  beforeAll(async () => {
    await client.connect();
    await repo().ensureIndexes();
  });
  afterAll(async () => {
    await client.db(dbName).dropDatabase();
    await client.close();
  });

  it('leaves out an order that exists and claims the others', async () => {
    const [old, fresh] = [oid(0x5d, 1), oid(0x5d, 2)];
    await repo().claimMany([doc(old)]);
    expect([...(await repo().claimMany([doc(old), doc(fresh)]))]).toEqual([fresh]);
  });

  it('a write concern error beside a duplicate fails the claim: no order passes as claimed', async () => {
    const [old, fresh] = [oid(0x5e, 1), oid(0x5e, 2)];
    await repo().claimMany([doc(old)]);
    // Unsatisfiable on any replica set here: mongod applies the inserts and answers a writeConcernError.
    await expect(repo({ w: 50 }).claimMany([doc(old), doc(fresh)])).rejects.toThrow(/write concern|data-bearing|UnsatisfiableWriteConcern/i);
  });
});
