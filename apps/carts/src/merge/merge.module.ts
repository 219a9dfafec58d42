import { Module } from '@nestjs/common';
import { ActivityModule } from '../activity/activity.module';
import { CartsModule } from '../carts/carts.module';
import { RelayBoundsRepository } from '../checkout/relay-bounds.repository';
import { TestPausePoints } from '../checkout/test-pause-points';
import { ProductsModule } from '../products/products.module';
import { SessionsModule } from '../sessions/sessions.module';
import { MergeController } from './merge.controller';
import { MergeIntentsRepository } from './merge-intents.repository';
import { MergeRelay } from './merge-relay';
import { MergeService } from './merge.service';

@Module({
  imports: [CartsModule, ProductsModule, SessionsModule, ActivityModule],
  controllers: [MergeController],
  providers: [MergeIntentsRepository, RelayBoundsRepository, MergeRelay, MergeService, TestPausePoints],
  exports: [MergeIntentsRepository, MergeRelay],
})
export class MergeModule {}
