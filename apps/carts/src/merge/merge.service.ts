import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppError, GUEST_SESSION_HEADER, LOGGER } from '@mw/platform';
import { cartActivity } from '../activity/activity';
import { ActivityService } from '../activity/activity.service';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { type Cart, type GuestMerge, newCart, touched } from '../carts/cart';
import type { CartView } from '../carts/cart-view';
import { CartsRepository } from '../carts/carts.repository';
import { CartsService } from '../carts/carts.service';
import { writtenInTime } from '../checkout/relay-pacing';
import { TestPausePoints } from '../checkout/test-pause-points';
import { ProductsRepository } from '../products/products.repository';
import {
  chooseTarget,
  guestStep,
  mergeLines,
  mergeRecord,
  type MergeIntent,
  targetStep,
  withRecord,
} from './merge';
import { MergeIntentsRepository } from './merge-intents.repository';

/** One guest cart merged into one user cart, as the merge answers it. */
export interface MergedCart {
  readonly guest_cart_id: string;
  readonly into_cart_id: string;
  readonly zone: string;
  readonly merged_at: string;
  readonly dropped: GuestMerge['dropped'];
}

export interface MergeAnswer {
  readonly carts: readonly CartView[];
  readonly merged: readonly MergedCart[];
}

/** A merge re-reads and decides again after every lost LWT; each guest cart passes few states, so this is plenty. */
const MAX_ATTEMPTS = 10;
/** Guest carts of one session taken by one merge (a session normally has one). */
const MAX_GUEST_CARTS = 10;

type Merging = Cart & { merge: GuestMerge };

/**
 * POST /carts/merge (ADR 0060, sessions and merge): the guest session's carts go into the user's
 * active cart of their zone. Every step is an LWT that any caller — this request, a concurrent
 * login, a retry, the merge relay after a crash — can take or find already taken, so the lines
 * arrive exactly once and the merge always completes.
 */
@Injectable()
export class MergeService {
  constructor(
    private readonly repo: CartsRepository,
    private readonly carts: CartsService,
    private readonly products: ProductsRepository,
    private readonly intents: MergeIntentsRepository,
    private readonly pauses: TestPausePoints,
    private readonly activity: ActivityService,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Merges every cart of the guest session (verified by the caller) into the user's carts. */
  async mergeSession(userId: string, sessionId: string): Promise<MergeAnswer> {
    const guestCarts = await this.repo.cartsOfSession(
      sessionId,
      ['active', 'merging', 'merged'],
      MAX_GUEST_CARTS,
    );
    const merged: MergedCart[] = [];
    for (const guest of guestCarts) {
      const done = await this.mergeOne(guest.cart_id, userId);
      if (done) merged.push(done);
    }
    if (merged.length === 0) {
      // No cart, or only carts another user merged: the same answer as for a cart that does not exist.
      throw new AppError('CARTS.CART_NOT_FOUND', 'not_found', 'this guest session has no cart to merge', [
        { field: `headers.${GUEST_SESSION_HEADER}`, message: 'no cart of this guest session' },
      ]);
    }
    const targets = [...new Set(merged.map((m) => m.into_cart_id))];
    const carts = (await Promise.all(targets.map((id) => this.repo.get(id)))).filter(
      (c): c is Cart => c !== null && c.user_id === userId,
    );
    return { carts: await Promise.all(carts.map((c) => this.carts.view(c))), merged };
  }

  /**
   * Takes one guest cart through active → merging → (lines in the target) → merged, or finds
   * each step taken; null when the cart is not this user's to merge.
   */
  async mergeOne(guestCartId: string, userId: string): Promise<MergedCart | null> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const now = new Date();
      const guest = await this.repo.get(guestCartId);
      switch (guestStep(guest, userId, now)) {
        case 'absent':
        case 'taken':
          return null;
        case 'done':
          return this.recorded(guest as Merging);
        case 'start': {
          const started = await this.start(guest as Cart, userId, now);
          if (!started) continue;
          const done = await this.complete(started);
          if (done) return done;
          continue;
        }
        case 'complete': {
          const done = await this.complete(guest as Merging);
          if (done) return done;
          continue;
        }
      }
    }
    throw AppError.conflict('CARTS.CONCURRENT_CHANGE', 'the carts changed concurrently; retry the merge');
  }

  /**
   * The intent: a merge_intents row (so the relay finds this merge after a crash), then the LWT
   * active → merging that records the target on the guest cart — the one serialization point of
   * concurrent merges. Null when another write won the LWT.
   */
  private async start(guest: Cart, userId: string, now: Date): Promise<Merging | null> {
    const target =
      chooseTarget(await this.repo.cartsOfUser(userId, 'active', 50), guest.zone, now) ?? randomUUID();
    // The intent's time is taken just before its write: the relays' time bound counts from it.
    const startedAt = new Date();
    const intent = MergeIntentsRepository.intentOf(guest.cart_id, startedAt);
    await this.intents.put(intent);
    if (!writtenInTime(startedAt, new Date(), this.config.RELAY_LOOKBACK_MS)) {
      // Acknowledged so late that a relay may have moved its time bound past it: never run its LWT.
      await this.intents.delete([intent]);
      this.logger.warn({ guest_cart_id: guest.cart_id }, 'merge intent written too late for the relay; trying again');
      return null;
    }
    const merge: GuestMerge = {
      into_cart_id: target,
      user_id: userId,
      started_at: startedAt.toISOString(),
      merged_at: null,
      dropped: [],
    };
    const next = touched(guest, { status: 'merging', merge }, startedAt, this.config.CART_TTL_SECONDS) as Merging;
    if (!(await this.repo.save(next, guest))) {
      await this.intents.delete([intent]);
      return null;
    }
    this.logger.info(
      { guest_cart_id: guest.cart_id, into_cart_id: target, user_id: userId },
      'guest cart merge started',
    );
    await this.pauses.at('after-merge-intent', guest.cart_id);
    return next;
  }

  /**
   * Brings the guest lines into the recorded target (once: the target records the guest cart in
   * the same LWT), then closes the guest cart. Null when an LWT lost: the caller re-reads.
   */
  async complete(guest: Merging): Promise<MergedCart | null> {
    const now = new Date();
    const target = await this.repo.get(guest.merge.into_cart_id);
    let record = target?.merged_from.find((r) => r.guest_cart_id === guest.cart_id);
    switch (targetStep(guest, target, now)) {
      case 'wait':
        throw new AppError(
          'CARTS.MERGE_PENDING',
          'conflict',
          'the cart the guest cart merges into is being checked out; retry the merge when the checkout ends',
          [{ field: 'status', message: target?.status ?? 'unknown' }],
        );
      case 'retarget': {
        const other =
          chooseTarget(
            await this.repo.cartsOfUser(guest.merge.user_id, 'active', 50),
            guest.zone,
            now,
            guest.merge.into_cart_id,
          ) ?? randomUUID();
        const moved = touched(
          guest,
          { merge: { ...guest.merge, into_cart_id: other } },
          now,
          this.config.CART_TTL_SECONDS,
        );
        if (await this.repo.save(moved, guest))
          this.logger.info(
            { guest_cart_id: guest.cart_id, from: guest.merge.into_cart_id, to: other },
            'merge target can take no lines; retargeted',
          );
        return null;
      }
      case 'create': {
        const { items, dropped } = mergeLines(
          {},
          guest.items,
          await this.products.getMany(Object.keys(guest.items)),
          this.config.CART_MAX_LINES,
        );
        record = mergeRecord(guest.cart_id, now, dropped);
        const fresh = newCart(
          {
            cart_id: guest.merge.into_cart_id,
            user_id: guest.merge.user_id,
            session_id: null,
            zone: guest.zone,
          },
          now,
          this.config.CART_TTL_SECONDS,
        );
        if (!(await this.repo.insert({ ...fresh, items, merged_from: [record] }))) return null;
        break;
      }
      case 'apply': {
        const into = target as Cart;
        const { items, dropped } = mergeLines(
          into.items,
          guest.items,
          await this.products.getMany(Object.keys(guest.items)),
          this.config.CART_MAX_LINES,
        );
        record = mergeRecord(guest.cart_id, now, dropped);
        if (
          !(await this.repo.save(
            touched(
              into,
              { items, merged_from: withRecord(into.merged_from, record) },
              now,
              this.config.CART_TTL_SECONDS,
            ),
            into,
          ))
        )
          return null;
        break;
      }
      case 'applied':
        break;
    }
    if (!record) return null;
    await this.pauses.at('after-merge-apply', guest.cart_id);
    const closed = touched(
      guest,
      { status: 'merged', merge: { ...guest.merge, merged_at: record.merged_at, dropped: record.dropped } },
      new Date(),
      this.config.CART_TTL_SECONDS,
    ) as Merging;
    if (!(await this.repo.save(closed, guest))) return null;
    await this.intents.delete([intentOf(guest)]);
    const merged = await this.recorded(closed);
    this.logger.info(
      {
        guest_cart_id: guest.cart_id,
        into_cart_id: guest.merge.into_cart_id,
        dropped: record.dropped.length,
      },
      'guest cart merged',
    );
    return merged;
  }

  /**
   * A merged guest cart as the merge answers it, after writing the user's CART_MERGED activity.
   * Every completer (the request, a retry, the relay) writes the same row, keyed by the guest cart
   * and the moment its lines arrived: a repeated merge call restores an event a crash lost.
   */
  private async recorded(guest: Merging): Promise<MergedCart> {
    const merged = mergedOf(guest);
    await this.activity.record(cartActivity.merged(guest.merge.user_id, merged, guest.session_id));
    return merged;
  }
}

function intentOf(guest: Merging): MergeIntent {
  return MergeIntentsRepository.intentOf(guest.cart_id, new Date(guest.merge.started_at));
}

function mergedOf(guest: Merging): MergedCart {
  return {
    guest_cart_id: guest.cart_id,
    into_cart_id: guest.merge.into_cart_id,
    zone: guest.zone,
    merged_at: guest.merge.merged_at ?? guest.updated_at.toISOString(),
    dropped: guest.merge.dropped,
  };
}
