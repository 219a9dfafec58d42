import { fixKafkajsIdleLoop, kafkajsRequestQueue } from './kafkajs-idle-loop';

type Queue = {
  pending: unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
  checkPendingRequests(): void;
  maybeThrottle(ms: number): void;
};

/** A real kafkajs request queue (its internal class), driven through its own methods. */
function queue(): Queue {
  const RequestQueue = kafkajsRequestQueue() as unknown as new (opts: Record<string, unknown>) => Queue;
  const logger = { debug: () => undefined, warn: () => undefined, error: () => undefined, info: () => undefined };
  return new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: true, clientId: 't', broker: 'b:1', logger, instrumentationEmitter: null });
}

/** Captured before anything in this process applies the fix. */
const shippedSchedule = kafkajsRequestQueue().prototype.scheduleCheckPendingRequests;

describe("kafkajs' idle request-queue loop (tulios/kafkajs#1556)", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('as shipped, an idle queue checks itself every millisecond forever', () => {
    const q = queue();
    q.scheduleCheckPendingRequests = shippedSchedule; // this instance only
    const checks = jest.spyOn(q, 'checkPendingRequests');
    q.checkPendingRequests(); // what every fulfilled response does
    jest.advanceTimersByTime(50);
    expect(checks.mock.calls.length).toBeGreaterThan(40);
    expect(jest.getTimerCount()).toBe(1);
  });

  it('with the fix an idle queue schedules nothing (the next push or response checks it)', () => {
    expect(fixKafkajsIdleLoop()).toBe(true);
    expect(fixKafkajsIdleLoop()).toBe(true); // idempotent
    const q = queue();
    const checks = jest.spyOn(q, 'checkPendingRequests');
    q.checkPendingRequests();
    jest.advanceTimersByTime(1_000);
    expect(checks).toHaveBeenCalledTimes(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('still checks later when requests are pending (10 ms) or a throttle is in force (at its end)', () => {
    fixKafkajsIdleLoop();
    const q = queue();
    q.pending.push({});
    q.scheduleCheckPendingRequests();
    expect(jest.getTimerCount()).toBe(1);
    const checks = jest.spyOn(q, 'checkPendingRequests').mockImplementation(() => undefined);
    jest.advanceTimersByTime(10);
    expect(checks).toHaveBeenCalledTimes(1);
    checks.mockRestore();

    const t = queue();
    t.maybeThrottle(250);
    t.scheduleCheckPendingRequests();
    expect(jest.getTimerCount()).toBe(1);
    const later = jest.spyOn(t, 'checkPendingRequests').mockImplementation(() => undefined);
    jest.advanceTimersByTime(249);
    expect(later).not.toHaveBeenCalled();
    jest.advanceTimersByTime(1);
    expect(later).toHaveBeenCalledTimes(1);
  });
});
