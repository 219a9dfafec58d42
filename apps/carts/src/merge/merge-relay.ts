import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER, Periodic } from '@mw/platform';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';
import { CartsRepository } from '../carts/carts.repository';
import { RelayBoundsRepository } from '../checkout/relay-bounds.repository';
import { IdleBackoff, RELAY_IDLE_FACTOR, RelayBounds, ScanWindow } from '../checkout/relay-pacing';
import { decideMergeIntent, dueForMergeRelay, MERGE_INTENT_BUCKETS, type MergeIntent } from './merge';
import { MergeIntentsRepository } from './merge-intents.repository';
import { MergeService } from './merge.service';

/** Intents one read of a bucket takes; a full page is continued by the next pass. */
const PAGE = 200;

/**
 * Completes guest-cart merges a crash left half-done (ADR 0060, sessions and merge). The request
 * that started a merge completes it itself; this relay is what makes a crash between the guest
 * cart's LWT and the user cart's write lose no line even if the client never retries.
 * Paced like the checkout relay: each bucket read from its time bound on, idle passes backed off.
 */
@Injectable()
export class MergeRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly loop: Periodic;
  private readonly window: RelayBounds;
  private readonly backoff = new IdleBackoff(RELAY_IDLE_FACTOR);

  constructor(
    private readonly intents: MergeIntentsRepository,
    private readonly carts: CartsRepository,
    private readonly merges: MergeService,
    bounds: RelayBoundsRepository,
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.window = new RelayBounds('merge', bounds, new ScanWindow(config.RELAY_LOOKBACK_MS), config.RELAY_LOOKBACK_MS);
    this.loop = new Periodic('merge-relay', config.MERGE_RELAY_INTERVAL_MS, () => this.backoff.tick(async () => (await this.pass()).found), logger);
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.loop.kick(); // first pass now: merges a crash left behind complete at once
  }

  async onApplicationShutdown(): Promise<void> {
    await this.loop.stop();
  }

  /** One pass over every bucket; returns how many merges it completed. */
  async drainOnce(now = new Date()): Promise<number> {
    return (await this.pass(now)).completed;
  }

  /** One pass: the merges it completed, and the intents it found at all (none: idle, back off). */
  private async pass(now = new Date()): Promise<{ completed: number; found: number }> {
    let completed = 0;
    let found = 0;
    for (let bucket = 0; bucket < MERGE_INTENT_BUCKETS; bucket++) {
      const startedAt = new Date();
      const intents = await this.intents.pending(bucket, PAGE, await this.window.from(bucket));
      found += intents.length;
      const gone = new Set<MergeIntent>();
      for (const intent of intents) {
        if (!dueForMergeRelay(intent, now, this.config.MERGE_RELAY_MIN_AGE_MS)) continue;
        // SERIAL: completes an LWT in flight; one not yet proposed is stopped by the fence (decideMergeIntent).
        const guest = await this.carts.get(intent.guest_cart_id, { serial: true });
        const decision = decideMergeIntent(intent, guest, now, this.config.MERGE_INTENT_GRACE_MS);
        if (decision === 'forget' || (decision === 'fence' && guest && (await this.carts.fence(guest)))) gone.add(intent);
        if (decision !== 'complete' || !guest?.merge) continue;
        try {
          // Completing deletes the intent row; a merge waiting for a checkout stays for the next pass.
          // Kept in the window: the next pass finds the row gone, or the guest cart merged (forget).
          if (await this.merges.mergeOne(guest.cart_id, guest.merge.user_id)) completed++;
        } catch (e) {
          this.logger.info(
            { guest_cart_id: guest.cart_id, err: (e as Error).message },
            'merge not completable yet; the relay will retry',
          );
        }
      }
      await this.intents.delete([...gone]);
      this.window.passed(bucket, { startedAt, rows: intents, pageSize: PAGE, gone });
    }
    await this.window.saveIfDue();
    if (completed > 0) this.logger.info({ completed }, 'relay completed half-done guest-cart merges');
    return { completed, found };
  }
}
