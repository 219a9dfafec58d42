import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { ConsumerRunner, InboundRecord } from '@mw/messaging';
import { assertUnreachable, runWithTrace } from '@mw/platform';
import { ReserveLimits, validateReserve } from './reservation';
import { ReservationsService } from './reservations.service';
import { salvageReserve } from './salvage';

/** Routes inventory commands: validated by the consumer runner (retry, dead-letter), then the service. */
export class CommandsHandler {
  constructor(
    private readonly runner: ConsumerRunner,
    private readonly service: ReservationsService,
    private readonly limits: ReserveLimits,
    private readonly logger: Logger,
  ) {}

  async handle(record: InboundRecord): Promise<void> {
    const salvaged = salvageReserve(record);
    if (salvaged) {
      const e = salvaged.envelope;
      const problem = validateReserve(salvaged, this.limits) ?? {
        code: 'INVENTORY.INVALID_COMMAND' as const,
        message: 'payload breaks the ReserveStock contract',
      };
      this.logger.warn(
        { offset: record.offset, order_id: salvaged.order_id, code: problem.code },
        'invalid ReserveStock answered with StockRejected',
      );
      return runWithTrace(
        { correlation_id: e.correlation_id, causation_id: e.causation_id, message_id: e.id },
        () => this.service.rejectInvalid(salvaged.order_id, salvaged.zone, problem),
      );
    }
    await this.runner.run('inventory.commands.v1', record, (envelope) => this.dispatch(envelope));
  }

  private dispatch(e: EnvelopeOf<'inventory.commands.v1'>): Promise<void> {
    switch (e.type) {
      case 'ReserveStock':
        return this.service.reserve(e.payload);
      case 'ReleaseStock':
        return this.service.release(e.payload.order_id);
      case 'CommitStock':
        return this.service.commit(e.payload.order_id);
      case 'ReturnStock':
        return this.service.returnStock(e.payload.order_id);
      default:
        return assertUnreachable(e);
    }
  }
}
