import { Module } from '@nestjs/common';
import { ActivityModule } from '../activity/activity.module';
import { ProductsModule } from '../products/products.module';
import { CartsController } from './carts.controller';
import { CartsRepository } from './carts.repository';
import { CartsService } from './carts.service';

@Module({
  imports: [ProductsModule, ActivityModule],
  controllers: [CartsController],
  providers: [CartsRepository, CartsService],
  exports: [CartsRepository, CartsService],
})
export class CartsModule {}
