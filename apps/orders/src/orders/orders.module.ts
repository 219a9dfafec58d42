import { Module } from '@nestjs/common';
import { OutboxModule } from '@mw/messaging';
import { CheckoutHandler } from './checkout.handler';
import { OrdersController } from './orders.controller';
import { ORDERS_COLLECTION, OrdersRepository } from './orders.repository';
import { OrdersService } from './orders.service';

@Module({
  imports: [OutboxModule.forRoot({ name: 'orders', collections: [ORDERS_COLLECTION] })],
  controllers: [OrdersController, CheckoutHandler],
  providers: [OrdersRepository, OrdersService],
})
export class OrdersModule {}
