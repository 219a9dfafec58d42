import { Module } from '@nestjs/common';
import { ActivityModule } from '../activity/activity.module';
import { CartsModule } from '../carts/carts.module';
import { ProductsModule } from '../products/products.module';
import { CheckoutController } from './checkout.controller';
import { CheckoutRelay } from './checkout-relay';
import { CheckoutOutboxRepository } from './checkout.repository';
import { CheckoutService } from './checkout.service';
import { RelayBoundsRepository } from './relay-bounds.repository';
import { TestPausePoints } from './test-pause-points';

@Module({
  imports: [CartsModule, ProductsModule, ActivityModule],
  controllers: [CheckoutController],
  providers: [CheckoutOutboxRepository, RelayBoundsRepository, CheckoutRelay, CheckoutService, TestPausePoints],
  exports: [CheckoutRelay, CheckoutOutboxRepository],
})
export class CheckoutModule {}
