/**
 * Runs the saga and the payment worker (the production classes, plain, no Nest) in a process of its
 * own: applies StockReserved to the given orders, whose transitions arm and claim their SALE steps
 * for this process's worker, and stops for good once the PSP has answered every order's sale —
 * after the PSP recorded it and before the outcome's transition is written — so a test can SIGKILL
 * it exactly there. Nudges of the outbox go nowhere: what it wrote waits for the live service.
 * argv: env (JSON: the orders settings of the test, as loadOrdersConfig reads them), order ids (JSON)
 */
import pino from 'pino';
import { createMongoClient } from '@mw/persistence';
import { pauseForKill } from '@mw/testing';
import { loadOrdersConfig } from '../config';
import type { Order } from '../orders/order';
import { sagaTimeouts } from '../orders/orders.module';
import { OrdersRepository } from '../orders/orders.repository';
import { SagaMessages } from '../saga/saga-messages';
import { SagaNudges, SagaService } from '../saga/saga.service';
import type { PaymentGateway, PaymentRequest, SaleResult } from '../payments/payment-gateway';
import { PaymentWorker } from '../payments/payment.worker';
import { SimulatedPaymentGateway } from '../payments/simulator/simulated-payment.gateway';

const [envJson, idsJson] = process.argv.slice(2) as [string, string];

/** The simulator, whose sales never return to the worker once answered: the process is killed there. */
class StopAfterSale implements PaymentGateway {
  private answered = 0;
  constructor(
    private readonly psp: SimulatedPaymentGateway,
    private readonly expected: number,
  ) {}
  authorize = (r: PaymentRequest) => this.psp.authorize(r);
  capture = (r: PaymentRequest) => this.psp.capture(r);
  void = (r: PaymentRequest) => this.psp.void(r);
  refund = (r: PaymentRequest) => this.psp.refund(r);
  status = (reference: string) => this.psp.status(reference);
  async sale(r: PaymentRequest): Promise<SaleResult> {
    const answer = await this.psp.sale(r);
    if (++this.answered === this.expected) return pauseForKill(`after-sale ${this.answered} ${answer.status}`);
    return new Promise<never>(() => undefined);
  }
}

async function main(): Promise<void> {
  const config = loadOrdersConfig(JSON.parse(envJson) as Record<string, string>);
  const ids = JSON.parse(idsJson) as string[];
  const logger = pino({ level: 'warn' }, pino.destination(2));
  const client = await createMongoClient(config.MONGO_URL).connect();
  const db = client.db(config.MONGO_DB);
  const repo = new OrdersRepository(db);
  const psp = new SimulatedPaymentGateway(
    db,
    {
      declineAmountFrom: null,
      declineTokens: [],
      declineUsers: [],
      hangUsers: [],
      lateCaptureUsers: [],
      latencyMinMs: 0,
      latencyMaxMs: 0,
      transientErrorRate: 0,
      timeoutRate: 0,
    },
    logger,
  );
  const messages = new SagaMessages(
    { inventoryCommands: config.INVENTORY_COMMANDS_TOPIC, orderEvents: config.ORDERS_EVENTS_TOPIC },
    config.STOCK_HOLD_SECONDS,
  );
  const here: { worker?: PaymentWorker } = {}; // the saga nudges the worker it is itself part of
  const nudges: SagaNudges = {
    outbox: () => undefined,
    payment: (order: Order, claimed?: boolean) => void here.worker?.submit(order, claimed),
    paymentLease: (orderId, ahead) => here.worker?.leaseFor(orderId, ahead),
  };
  const saga = new SagaService(repo, messages, sagaTimeouts(config), nudges, logger);
  here.worker = new PaymentWorker(
    repo,
    new StopAfterSale(psp, ids.length),
    saga,
    {
      concurrency: config.PAYMENT_CONCURRENCY,
      leaseMs: config.PAYMENT_LEASE_MS,
      retryBaseMs: config.PAYMENT_RETRY_BASE_MS,
      retryMaxMs: config.PAYMENT_RETRY_MAX_MS,
      callTimeoutMs: 600_000, // the test kills it first: no timeout may end the paused call
      defaultCardToken: config.PAYMENT_DEFAULT_CARD_TOKEN,
    },
    logger,
  );
  const expires = new Date(Date.now() + config.STOCK_HOLD_SECONDS * 1000);
  for (const id of ids) await saga.apply(id, { type: 'StockReserved', id: `reserved-${id}`, expires_at: expires }, null);
  process.stdout.write('payment-child reserved\n');
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
