import { createServer } from 'node:net';
import { ephemeralRange, FREE_PORT_RANGE, freePort } from './free-port';

describe('freePort', () => {
  it('answers distinct bindable ports outside the kernel’s ephemeral range', async () => {
    const { low, high } = ephemeralRange();
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(FREE_PORT_RANGE.from);
      expect(p).toBeLessThan(FREE_PORT_RANGE.to);
      expect(p >= low && p <= high).toBe(false);
    }
    const s = createServer();
    await new Promise<void>((r) => s.listen(ports[0], '127.0.0.1', r));
    await new Promise((r) => s.close(r));
  });

  it('reads the range the kernel gives out', () => {
    expect(ephemeralRange('32768\t60999\n')).toEqual({ low: 32768, high: 60999 });
    expect(ephemeralRange('')).toEqual({ low: 32768, high: 60999 });
  });
});
