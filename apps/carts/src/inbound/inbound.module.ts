import { Module } from '@nestjs/common';
import { ActivityModule } from '../activity/activity.module';
import { CartsModule } from '../carts/carts.module';
import { ProductsModule } from '../products/products.module';
import { InboundConsumer } from './inbound.consumer';
import { OrderEventsService } from './order-events.service';

/** What carts consumes from Kafka (order events, catalog products, stock levels), one consumer in batches. */
@Module({
  imports: [ProductsModule, CartsModule, ActivityModule],
  providers: [OrderEventsService, InboundConsumer],
  exports: [OrderEventsService],
})
export class InboundModule {}
