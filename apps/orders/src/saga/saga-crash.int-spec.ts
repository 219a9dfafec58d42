import { join } from 'node:path';
import { PausingChild } from '@mw/testing';
import { OrderDoc, ORDERS_COLLECTION } from '../orders/orders.repository';
import { OrdersHarness } from '../test/harness';

const ORDERS = 12;

/**
 * The saga's group commit across a SIGKILL (ADR 0012 §4): a process running the saga's batch
 * consumer is killed after the majority acknowledged its bulkWrite of transitions and before the
 * chunk's offsets were committed. The chunk is delivered again to the restarted service: what the
 * dead process wrote is recognised (its cause is in the history) and nothing is applied, sent or
 * paid twice; every order is confirmed and sends its sale (CommitStock) once.
 */
describe('saga batch killed between its bulkWrite and the offset commit', () => {
  const h = new OrdersHarness({
    KAFKA_TOPIC_PARTITIONS: '1', // the whole backlog is one fetched batch
    KAFKA_SESSION_TIMEOUT_MS: '6000', // the killed member leaves the group soon
    KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
    KAFKA_HANDLER_TIMEOUT_MS: '4000',
  });
  let child: PausingChild | undefined;

  afterAll(async () => {
    await child?.kill();
    await h.stop();
  });

  it('applies, sends and pays every order once', async () => {
    await h.start(1); // makes the topics and the group
    const checkouts = Array.from({ length: ORDERS }, () => h.checkout());
    for (const c of checkouts) await h.sendCheckout(c);
    for (const c of checkouts) await h.waitSeen(c.order_id, 'ReserveStock');
    await h.stopApps();

    // the replies wait in Kafka while nobody consumes; then the child takes them as one batch
    const causes = new Map<string, string>();
    for (const c of checkouts) causes.set(c.order_id, await h.reserved(c));
    const c = h.config;
    child = new PausingChild(join(__dirname, '../test/saga-child.ts'), [
      JSON.stringify(
        h.childEnv({
          KAFKA_SESSION_TIMEOUT_MS: '6000',
          KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
          KAFKA_HANDLER_TIMEOUT_MS: '4000',
        }),
      ),
    ]);
    await child.pausedAt('after-bulk');
    const orders = h.db.collection<OrderDoc>(ORDERS_COLLECTION);
    const ids = checkouts.map((x) => x.order_id);
    const moved = await orders.countDocuments({ _id: { $in: ids }, 'saga.state': 'AWAITING_PAYMENT' });
    process.stdout.write(`saga crash: ${moved} of ${ORDERS} transitions written by the batch before the kill\n`);
    expect(moved).toBeGreaterThanOrEqual(2);
    await child.kill();
    // its offsets were never committed
    const committed = h.kafka.admin();
    await committed.connect();
    const [offsets] = await committed.fetchOffsets({ groupId: c.KAFKA_GROUP_ID, topics: [c.INVENTORY_EVENTS_TOPIC] });
    await committed.disconnect();
    expect(offsets?.partitions.every((p) => Number(p.offset) <= 0)).toBe(true);

    // the restarted service gets the chunk again and takes every order on, once
    const docs = await h.ordersAfterRestart(ids);
    for (const id of ids) {
      const d = docs.find((x) => x._id === id)!;
      expect(d.saga.history.filter((t) => t.cause === causes.get(id))).toHaveLength(1);
      expect(d.saga.state).toBe('CONFIRMED');
      expect(h.for(id, 'CommitStock')).toHaveLength(1);
      expect(h.for(id, 'OrderConfirmed')).toHaveLength(1);
      expect(h.for(id, 'ReserveStock')).toHaveLength(1);
      const ops = await h.paymentOps(id);
      expect(ops.map((o) => `${o.op}:${o.outcome.status}`)).toEqual(['sale:captured']);
    }
  }, 240_000);
});
