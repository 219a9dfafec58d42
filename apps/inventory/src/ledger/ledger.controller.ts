import { Controller } from '@nestjs/common';
import { z } from 'zod';
import { access, Endpoint, endpoint, Input, type InputOf } from '@mw/platform';
import { CheckQuery, HistoryParams, HistoryQuery, LedgerCheckView, LedgerEntryView, ledgerCheckExample, ledgerEntryExample, toEntryView } from './ledger.dto';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';

export const ledgerCheckEndpoint = endpoint({
  operationId: 'ledgerCheck',
  method: 'GET',
  path: '/ledger/check',
  tag: 'ledger',
  summary: 'Check the ledger invariant',
  description:
    'Every (product, zone) document (up to 1,000): available + reserved + committed = received − adjustments, no negative counter, reserved = the open holds, the counters = the replay of the ledger, committed = the units of committed reservations. Read in one snapshot.',
  access: access.roles('operator'),
  query: CheckQuery,
  response: { status: 200, description: 'The report; `ok` false lists the failing documents', schema: LedgerCheckView, example: ledgerCheckExample },
});

export const ledgerHistoryEndpoint = endpoint({
  operationId: 'ledgerHistory',
  method: 'GET',
  path: '/ledger/:productId/:zone',
  tag: 'ledger',
  summary: 'Movements of a product in a zone, newest first',
  description: 'Movements reach the ledger collection shortly after the change (the flusher moves them out of the stock document). Empty for a product never stocked in the zone.',
  access: access.roles('stock_manager', 'operator'),
  rateLimit: 'reads',
  params: HistoryParams,
  query: HistoryQuery,
  response: { status: 200, description: 'The movements', schema: z.array(LedgerEntryView), example: [ledgerEntryExample] },
});

@Controller()
export class LedgerController {
  constructor(
    private readonly service: LedgerService,
    private readonly ledger: LedgerRepository,
  ) {}

  @Endpoint(ledgerCheckEndpoint)
  check(@Input() { query }: InputOf<typeof ledgerCheckEndpoint>): ReturnType<LedgerService['check']> {
    return this.service.check(query);
  }

  @Endpoint(ledgerHistoryEndpoint)
  async history(@Input() { params, query }: InputOf<typeof ledgerHistoryEndpoint>): Promise<LedgerEntryView[]> {
    const entries = await this.ledger.history(params.productId.toLowerCase(), params.zone, query.limit);
    return entries.map(toEntryView);
  }
}
