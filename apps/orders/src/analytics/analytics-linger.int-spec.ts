import { OutgoingMessage } from '@mw/contracts';
import { serviceBearer } from '../test/harness';
import { historicOrder } from './demo/historic-orders';
import { AnalyticsHarness } from './test/analytics-harness';
import { KNOWN_ORDERS } from './test/known-orders';

/*
 * The analytics consumer's fetch linger (ADR 0051 "Fetch linger"): order events arriving one by one
 * are applied in a few chunks (one transaction each) instead of one chunk per event — and the
 * figures are the same. The same trickle is sent to an instance that answers fetches at the first
 * record (ANALYTICS_FETCH_MIN_BYTES=1, the saga's setting), which must apply it in many chunks:
 * that is what the linger removes. Real Kafka and replica set; chunks counted by the service's own
 * `orders_analytics_batch_records` histogram on /metrics.
 */

const TRICKLE_GAP_MS = 60;

/** Every event of the known orders, one at a time, on one partition (one key), `TRICKLE_GAP_MS` apart. */
async function trickle(h: AnalyticsHarness, messages: readonly OutgoingMessage[]): Promise<number> {
  const started = Date.now();
  for (const m of messages) {
    await h.publish([{ ...m, key: 'linger' } as OutgoingMessage]);
    await new Promise((r) => setTimeout(r, TRICKLE_GAP_MS));
  }
  return Date.now() - started;
}

async function chunks(h: AnalyticsHarness): Promise<{ count: number; records: number }> {
  const text = await (await fetch(`${h.orders.urls[0]}/metrics`, { headers: await serviceBearer() })).text();
  const value = (name: string): number => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { count: value('orders_analytics_batch_records_count'), records: value('orders_analytics_batch_records_sum') };
}

describe('analytics fetch linger', () => {
  const WAIT_MS = 2000;
  const run = async (overrides: Record<string, string>): Promise<{ count: number; records: number; events: number; markers: number; trickleMs: number }> => {
    const h = new AnalyticsHarness({ OUTBOX_POLL_MS: '1000', PAYMENT_POLL_MS: '5000', SAGA_SWEEP_INTERVAL_MS: '5000', ...overrides });
    try {
      await h.start();
      const orders = KNOWN_ORDERS.map((s) => historicOrder(s, h.config.ORDERS_EVENTS_TOPIC));
      // the orders as the service wrote them, their events already relayed: the test sends them itself
      await h.insert(orders.map((o) => ({ ...o.doc, _outbox: [] })));
      const messages = orders.flatMap((o) => o.messages);
      const trickleMs = await trickle(h, messages);
      await h.drained();
      return { ...(await chunks(h)), events: messages.length, markers: await h.markers(), trickleMs };
    } finally {
      await h.stop();
    }
  };

  it('a trickle of events is applied in a few transactions with the linger, one or two events each without it', async () => {
    const lingering = await run({ ANALYTICS_FETCH_MAX_WAIT_MS: String(WAIT_MS) });
    const eager = await run({ ANALYTICS_FETCH_MIN_BYTES: '1' });
    // 30-odd events sent over ~2 s: every one applied, the same facts either way
    expect(lingering.records).toBe(lingering.events);
    expect(eager.records).toBe(eager.events);
    expect(lingering.markers).toBe(eager.markers);
    expect(lingering.markers).toBeGreaterThan(0);
    // with the linger a fetch waits up to 2 s for 64 KiB: a trickle of ~2 s (longer on a busy
    // machine) arrives in one fetch per 2 s it lasted, plus the one it began in
    expect(lingering.count).toBeLessThanOrEqual(Math.ceil(lingering.trickleMs / WAIT_MS) + 1);
    expect(lingering.count).toBeLessThan(eager.count / 4);
    // answered at the first record, fetches follow the trickle
    expect(eager.count).toBeGreaterThanOrEqual(eager.events / 3);
  }, 240_000);
});
