import { Module } from '@nestjs/common';
import { ProductsModule } from '../products/products.module';
import { CartsController } from './carts.controller';
import { CartsRepository } from './carts.repository';
import { CartsService } from './carts.service';

@Module({
  imports: [ProductsModule],
  controllers: [CartsController],
  providers: [CartsRepository, CartsService],
  exports: [CartsRepository, CartsService],
})
export class CartsModule {}
