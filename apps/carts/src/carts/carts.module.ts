import { Module } from '@nestjs/common';
import { CartsController } from './carts.controller';
import { CartsRepository } from './carts.repository';
import { CartsService } from './carts.service';
import { OrderOutcomeHandler } from './order-outcome.handler';

@Module({
  controllers: [CartsController, OrderOutcomeHandler],
  providers: [CartsRepository, CartsService],
})
export class CartsModule {}
