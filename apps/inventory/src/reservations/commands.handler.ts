import type { Logger } from 'pino';
import { EnvelopeOf } from '@mw/contracts';
import { BatchContext, ConsumerRunner, InboundRecord } from '@mw/messaging';
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

  /**
   * A consumed batch of commands (group commit, ADR 0012 §4), of one or more. The ReserveStock and CommitStock of
   * orders that have no other command in the batch go to the service's group paths (a few round
   * trips for all of them); every other command is handled alone, in the batch's order, so an
   * order's commands keep their order. A batch holding a contract-breaking ReserveStock (answered,
   * not dead-lettered) is handled one command at a time. If the group work fails, the runner gives
   * each command the per-message path — every step there converges from whatever the group left.
   */
  async handleBatch(records: readonly InboundRecord[]): Promise<void> {
    // A batch of one takes the group path too: a lone ReserveStock or CommitStock is then one commit (ADR 0015 §7).
    if (records.some((r) => salvageReserve(r) !== null)) {
      for (const r of records) await this.handle(r);
      return;
    }
    await this.runner.runBatch(
      'inventory.commands.v1',
      records,
      (envelopes, ctx) => this.dispatchMany(envelopes, ctx),
      (e) => this.dispatch(e),
    );
  }

  private async dispatchMany(envelopes: readonly EnvelopeOf<'inventory.commands.v1'>[], ctx: BatchContext): Promise<void> {
    const commandsOf = new Map<string, number>();
    for (const e of envelopes) commandsOf.set(orderOf(e), (commandsOf.get(orderOf(e)) ?? 0) + 1);
    const reserves: number[] = [];
    const commits: number[] = [];
    const alone: number[] = [];
    for (const [i, e] of envelopes.entries()) {
      const only = commandsOf.get(orderOf(e)) === 1;
      if (only && e.type === 'ReserveStock') reserves.push(i);
      else if (only && e.type === 'CommitStock') commits.push(i);
      else alone.push(i);
    }
    const reserve = (i: number) => envelopes[i] as Extract<EnvelopeOf<'inventory.commands.v1'>, { type: 'ReserveStock' }>;
    await this.service.reserveMany(
      reserves.map((i) => reserve(i).payload),
      (j, fn) => ctx.within(reserves[j]!, fn),
    );
    const commit = (i: number) => envelopes[i] as Extract<EnvelopeOf<'inventory.commands.v1'>, { type: 'CommitStock' }>;
    await this.service.commitMany(
      commits.map((i) => commit(i).payload.order_id),
      (j, fn) => ctx.within(commits[j]!, fn),
      commits.map((i) => commit(i).payload.reply ?? 'always'),
    );
    for (const i of alone) await ctx.within(i, () => this.dispatch(envelopes[i]!));
  }

  private dispatch(e: EnvelopeOf<'inventory.commands.v1'>): Promise<void> {
    switch (e.type) {
      case 'ReserveStock':
        return this.service.reserve(e.payload);
      case 'ReleaseStock':
        return this.service.release(e.payload.order_id);
      case 'CommitStock':
        return this.service.commit(e.payload.order_id, e.payload.reply);
      case 'ReturnStock':
        return this.service.returnStock(e.payload.order_id);
      default:
        return assertUnreachable(e);
    }
  }
}

const orderOf = (e: EnvelopeOf<'inventory.commands.v1'>): string => e.payload.order_id.toLowerCase();
