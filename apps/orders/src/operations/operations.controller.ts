import { Controller } from '@nestjs/common';
import type { RedriveResult } from '@mw/messaging';
import { Endpoint, Input, type InputOf } from '@mw/platform';
import type { ConsumerLagReport, DeadLetterTopic } from './kafka-operations';
import { getConsumerLag, listDeadLetters, redriveDeadLetters } from './kafka-operations.endpoints';
import { KafkaOperationsService } from './kafka-operations.service';
import { StuckOrders } from './operations.service';
import type { StuckOrdersReport } from './stuck-orders';
import { listStuckOrders } from './stuck-orders.endpoints';

/** The operator's read endpoints of orders: stuck sagas, consumer lag, dead letters and their redrive. */
@Controller()
export class OperationsController {
  constructor(
    private readonly stuck: StuckOrders,
    private readonly kafka: KafkaOperationsService,
  ) {}

  @Endpoint(listStuckOrders)
  async stuckOrders(@Input() input: InputOf<typeof listStuckOrders>): Promise<StuckOrdersReport> {
    return this.stuck.report(input.query.limit);
  }

  @Endpoint(getConsumerLag)
  consumerLag(): Promise<ConsumerLagReport> {
    return this.kafka.consumerLag();
  }

  @Endpoint(listDeadLetters)
  deadLetters(): Promise<{ topics: DeadLetterTopic[] }> {
    return this.kafka.deadLetters();
  }

  @Endpoint(redriveDeadLetters)
  redrive(@Input() input: InputOf<typeof redriveDeadLetters>): Promise<RedriveResult> {
    return this.kafka.redrive(input.params.topic, input.body.group);
  }
}
