import { join } from 'node:path';
import { PausingChild } from '@mw/testing';
import { OrderDoc, ORDERS_COLLECTION } from '../orders/orders.repository';
import { OrdersHarness } from '../test/harness';
import { SIM_PAYMENTS } from './simulator/simulated-payment.gateway';

const ORDERS = 4;
const LEASE_MS = '3000';

/**
 * The sale across a SIGKILL (ADR 0015 §11): one PSP call authorizes and captures, and the order's
 * transition to CONFIRMED is a second write in another system. A process is killed after the PSP
 * recorded every order's sale and before any outcome reached the orders. Once the lease its
 * transition took has passed, the live service's worker calls the sale again with the same
 * idempotency key, is answered from the PSP's record (no second capture, no second write there)
 * and confirms each order once, sending its stock sale (CommitStock) once.
 */
describe('payment worker killed between the PSP answering the sale and the transition', () => {
  const h = new OrdersHarness({ PAYMENT_LEASE_MS: LEASE_MS });
  let child: PausingChild | undefined;

  afterAll(async () => {
    await child?.kill();
    await h.stop();
  });

  it('captures once and confirms every order once', async () => {
    await h.start(1);
    const checkouts = Array.from({ length: ORDERS }, () => h.checkout());
    for (const c of checkouts) await h.sendCheckout(c);
    for (const c of checkouts) await h.waitSeen(c.order_id, 'ReserveStock');
    await h.stopApps(); // the orders wait for their stock; the child takes them on

    const ids = checkouts.map((x) => x.order_id);
    child = new PausingChild(join(__dirname, '../test/payment-child.ts'), [
      JSON.stringify(h.childEnv({ PAYMENT_LEASE_MS: LEASE_MS })),
      JSON.stringify(ids),
    ]);
    await child.pausedAt(`after-sale ${ORDERS} captured`);
    const orders = h.db.collection<OrderDoc>(ORDERS_COLLECTION);
    const psp = h.db.collection<{ _id: string; status: string; v: number }>(SIM_PAYMENTS);
    // the PSP took every order's money; no order knows yet
    expect(await psp.countDocuments({ _id: { $in: ids }, status: 'captured' })).toBe(ORDERS);
    const paying = await orders.find({ _id: { $in: ids } }).toArray();
    expect(paying.map((o) => `${o.saga.state}:${o.saga.payment.step}`)).toEqual(ids.map(() => 'AWAITING_PAYMENT:SALE'));
    await child.kill();

    // the live service's worker takes each step after its lease and is answered from the PSP's record
    const docs = await h.ordersAfterRestart(ids);
    for (const id of ids) {
      const d = docs.find((x) => x._id === id)!;
      expect(d.saga.state).toBe('CONFIRMED');
      expect(d.saga.payment).toMatchObject({ authorized: true, captured: true, step: null });
      expect(d.saga.history.filter((t) => t.event === 'PaymentCaptured').map((t) => t.cause)).toEqual([`${id}:sale`]);
      expect(h.for(id, 'CommitStock')).toHaveLength(1);
      expect(h.for(id, 'OrderConfirmed')).toHaveLength(1);
      const ops = await h.paymentOps(id);
      expect(ops.map((o) => `${o._id}=${o.outcome.status}`)).toEqual([`${id}:sale=captured`]);
      expect(await psp.findOne({ _id: id })).toMatchObject({ status: 'captured', v: 1 }); // no second write at the PSP
    }
  }, 240_000);
});
