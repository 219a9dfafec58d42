/**
 * A plain kafkajs consumer's life as kafkajs reports it, and whether it is ready.
 * Ready only while the group is joined and no crash or stop came after: a consumer that
 * crashed (restarting or, without restart, dead) or stopped handles nothing, so readiness
 * must say so (issue #9 item 7). Plain rules; the consumer feeds the kafkajs events.
 */
export type ConsumerStatus = 'starting' | 'running' | 'restarting' | 'crashed' | 'stopped';

export type ConsumerSignal =
  | { readonly kind: 'joined' }
  | { readonly kind: 'crashed'; readonly restart: boolean }
  | { readonly kind: 'stopped' }
  /** A new consumer replaces one that crashed for good (BatchConsumer relaunches it). */
  | { readonly kind: 'relaunching' };

export function nextStatus(status: ConsumerStatus, signal: ConsumerSignal): ConsumerStatus {
  switch (signal.kind) {
    case 'joined':
      // A consumer that crashed for good does not come back by itself.
      return status === 'crashed' ? status : 'running';
    case 'crashed':
      return signal.restart ? 'restarting' : 'crashed';
    case 'stopped':
      // kafkajs stops the consumer before it reports the crash; keep the crash when it came first.
      return status === 'crashed' || status === 'restarting' ? status : 'stopped';
    case 'relaunching':
      return 'restarting';
  }
}

export const isReady = (status: ConsumerStatus): boolean => status === 'running';
