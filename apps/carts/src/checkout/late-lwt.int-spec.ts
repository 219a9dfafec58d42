import { randomUUID } from 'node:crypto';
import { waitFor } from '@mw/testing';
import { touched } from '../carts/cart';
import { CartsRepository } from '../carts/carts.repository';
import { MergeIntentsRepository } from '../merge/merge-intents.repository';
import { MergeRelay } from '../merge/merge-relay';
import { CartsHarness, oid, RELAYS_RUN_BY_THE_TEST, sleep } from '../test/harness';
import { CheckoutRelay } from './checkout-relay';
import { CheckoutService } from './checkout.service';
import { CheckoutOutboxRepository } from './checkout.repository';
import { TestPausePoints, type PausePoint } from './test-pause-points';

/**
 * An LWT that lands after its relay's grace (ADR 0060, "The relays' fence"). The grace period is
 * a guess: under load a request stalled more than 5 s between its outbox intent and its LWT, the
 * relay dropped the intent, then the LWT applied while its client saw a timeout — a cart left
 * checking out with nothing published (the chaos storm of 2026-11-29). The relays now fence an
 * active cart before dropping its intent, so such an LWT fails and its request starts over.
 * Real Cassandra and Kafka; passes of the relays are run by the test.
 */
describe('carts relays: an LWT that lands after the grace (real Cassandra, Kafka)', () => {
  const h = new CartsHarness(RELAYS_RUN_BY_THE_TEST);
  const phone = oid(0x4a11);

  beforeAll(async () => {
    await h.start();
    await h.product(phone, 1, 1_999_00);
    await h.drained('catalog.products.v1');
  });
  afterAll(() => h.stop());

  it('a checkout whose LWT applies after the relay gave up on its intent is still published — or never applies', async () => {
    const alice = await h.as('alice');
    const cartId = await h.createCart('MSK', alice);
    expect((await h.http('PUT', `/carts/${cartId}/items/${phone}`, { qty: 1 }, alice)).status).toBe(200);

    // The first attempt stops between its intent and its LWT until released; every applied LWT
    // then "times out" at its client (the server applied it; the request answers an error and
    // publishes nothing): what the chaos run saw.
    // The pause points the checkout service holds (each module has its own instance).
    const pauses = (h.app.get(CheckoutService) as unknown as { pauses: TestPausePoints }).pauses;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const stalled: string[] = [];
    pauses.at = async (point: PausePoint, id: string): Promise<void> => {
      if (point === 'after-intent' && stalled.length === 0) {
        stalled.push(id);
        await held;
      }
      if (point === 'after-lwt') throw new Error('the host did not reply before timeout (test)');
    };

    const answer = h.http('POST', `/carts/${cartId}/checkout`, undefined, alice);
    await waitFor(async () => stalled.length === 1, 10_000, 'the checkout stalled after its intent');
    await sleep(800); // past the grace
    await h.app.get(CheckoutRelay).drainOnce();
    release();
    expect((await answer).status).toBe(500);

    // Whatever the relay did, a cart on a checkout has that checkout published once its intents are relayed.
    await sleep(800);
    await h.app.get(CheckoutRelay).drainOnce();
    const cart = await h.app.get(CartsRepository).get(cartId, { serial: true });
    expect(await h.app.get(CheckoutOutboxRepository).countAll(h.config.CHECKOUT_OUTBOX_BUCKETS)).toBe(0);
    if (cart?.status === 'checking_out') {
      const id = cart.checkout?.checkout_id;
      await waitFor(
        async () => h.checkoutsOf(cartId).some((e) => e.payload['checkout_id'] === id),
        10_000,
        `checkout ${id} published`,
      );
    }
    // The fenced LWT lost; the request's second attempt applied (and its intent was relayed).
    expect(cart?.status).toBe('checking_out');
    expect(cart?.checkout?.checkout_id).not.toBe(stalled[0]);
    expect(h.checkoutsOf(cartId).map((e) => e.payload['checkout_id'])).toEqual([cart?.checkout?.checkout_id]);

    // A retry of the client answers that checkout.
    const retry = await h.http('POST', `/carts/${cartId}/checkout`, undefined, alice);
    expect(retry.status).toBe(200);
    expect(retry.body['checkout_id']).toBe(cart?.checkout?.checkout_id);
  });

  it('a guest-cart merge whose LWT comes after the relay forgot its intent fails, and the guest cart keeps its lines', async () => {
    const guest = await h.guest();
    const guestCartId = await h.createCart('MSK', guest);
    expect((await h.http('PUT', `/carts/${guestCartId}/items/${phone}`, { qty: 2 }, guest)).status).toBe(200);
    const repo = h.app.get(CartsRepository);
    const read = (await repo.get(guestCartId))!;

    // A merge request read the guest cart and wrote its intent, then stalled past the grace.
    const startedAt = new Date();
    const intents = h.app.get(MergeIntentsRepository);
    await intents.put(MergeIntentsRepository.intentOf(guestCartId, startedAt));
    await sleep(800);
    await h.app.get(MergeRelay).drainOnce();
    expect(
      await intents.pending(MergeIntentsRepository.intentOf(guestCartId, startedAt).bucket, 100),
    ).toEqual([]);

    // Its LWT, late: active → merging at the revision it read.
    const merge = {
      into_cart_id: randomUUID(),
      user_id: 'late',
      started_at: startedAt.toISOString(),
      merged_at: null,
      dropped: [],
    };
    expect(
      await repo.save(
        touched(read, { status: 'merging', merge }, startedAt, h.config.CART_TTL_SECONDS),
        read,
      ),
    ).toBe(false);
    const after = await repo.get(guestCartId, { serial: true });
    expect(after?.status).toBe('active');
    expect(after?.items[phone]?.qty).toBe(2);
    expect(after?.revision).toBe((read.revision ?? 0) + 1);
  });
});
