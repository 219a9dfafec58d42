import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where `freePort` looks: below Linux's ephemeral range (32768–60999 by default) and above the
 * ports the project's own servers take (infra 18xxx–19xxx, the chaos set 27xxx–29xxx, the stack's
 * test offsets 2xxxx).
 */
export const FREE_PORT_RANGE = { from: 30_000, to: 32_768 } as const;

/** Ports this process handed out: never twice. */
const handedOut = new Set<number>();

/** The kernel's ephemeral range, [low, high] (the default when it cannot be read). */
export function ephemeralRange(text?: string): { low: number; high: number } {
  try {
    const [low, high] = (text ?? readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/).map(Number);
    if (low && high) return { low, high };
  } catch {
    // not Linux: the default below
  }
  return { low: 32_768, high: 60_999 };
}

const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/**
 * A loopback TCP port nothing listens on, for a process a test starts and that binds it moments
 * later. `listen(0)` answers a port of the ephemeral range, which any outgoing connection of the
 * machine (a Kafka, MongoDB or Cassandra client) may take as its source port before the process
 * binds it — seen as a service failing with EADDRINUSE in the e2e stack (CI, 2026-12-02). Outside
 * that range only another listener can take it.
 */
export async function freePort(): Promise<number> {
  const { low, high } = ephemeralRange();
  const inEphemeral = (p: number) => p >= low && p <= high;
  const span = FREE_PORT_RANGE.to - FREE_PORT_RANGE.from;
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = FREE_PORT_RANGE.from + Math.floor(Math.random() * span);
    if (handedOut.has(port) || inEphemeral(port)) continue;
    handedOut.add(port); // before the check: a concurrent call must not try the same port
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${FREE_PORT_RANGE.from}–${FREE_PORT_RANGE.to - 1} outside the ephemeral range ${low}–${high}`);
}
