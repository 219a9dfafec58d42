import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ObjectIdHex, ZoneCode } from '@mw/contracts';
import { validate } from '@mw/platform';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';

const CheckQuery = z.strictObject({ product_id: ObjectIdHex.optional(), zone: ZoneCode.optional() });
const HistoryParams = z.strictObject({ productId: ObjectIdHex, zone: ZoneCode });
const HistoryQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(1000).default(100) });

@ApiTags('ledger')
@Controller('ledger')
export class LedgerController {
  constructor(
    private readonly service: LedgerService,
    private readonly ledger: LedgerRepository,
  ) {}

  @Get('check')
  @ApiOperation({ summary: 'Checks available + reserved + committed = received − adjustments and the counters against the ledger' })
  @ApiQuery({ name: 'product_id', required: false })
  @ApiQuery({ name: 'zone', required: false })
  check(@Query() query: unknown): Promise<unknown> {
    return this.service.check(validate(CheckQuery, query, 'query'));
  }

  @Get(':productId/:zone')
  @ApiOperation({ summary: 'Movements of a (product, zone), newest first' })
  history(@Param() params: unknown, @Query() query: unknown): Promise<unknown> {
    const p = validate(HistoryParams, params, 'params');
    return this.ledger.history(p.productId.toLowerCase(), p.zone, validate(HistoryQuery, query, 'query').limit);
  }
}
