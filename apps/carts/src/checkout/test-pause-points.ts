import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@mw/platform';
import { CARTS_CONFIG } from '../config.token';
import type { CartsConfig } from '../config';

export type PausePoint = 'after-intent' | 'after-lwt' | 'after-merge-intent' | 'after-merge-apply';

/**
 * Test-only crash points (config CARTS_TEST_PAUSE_AT, refused unless NODE_ENV=test). At the
 * configured point a checkout (or a guest-cart merge) announces itself on stdout with its id and
 * never continues, so the crash test can SIGKILL the process exactly between two writes. A no-op
 * in every other configuration.
 */
@Injectable()
export class TestPausePoints {
  constructor(
    @Inject(CARTS_CONFIG) private readonly config: Readonly<CartsConfig>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async at(point: PausePoint, id: string): Promise<void> {
    if (this.config.CARTS_TEST_PAUSE_AT !== point) return;
    this.logger.warn({ point, id }, 'test pause point reached; waiting to be killed');
    process.stdout.write(`PAUSED ${point} ${id}\n`);
    await new Promise<never>(() => undefined);
  }
}
