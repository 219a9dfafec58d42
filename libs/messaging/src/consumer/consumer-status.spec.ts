import { ConsumerSignal, ConsumerStatus, isReady, nextStatus } from './consumer-status';

const run = (signals: ConsumerSignal[]): ConsumerStatus =>
  signals.reduce(nextStatus, 'starting' as ConsumerStatus);

describe('projector consumer status', () => {
  it('is ready only once the group joined', () => {
    expect(isReady('starting')).toBe(false);
    expect(isReady(run([{ kind: 'joined' }]))).toBe(true);
  });

  it('a crash that kafkajs restarts is not ready until the group joins again', () => {
    const crashed = run([{ kind: 'joined' }, { kind: 'stopped' }, { kind: 'crashed', restart: true }]);
    expect(crashed).toBe('restarting');
    expect(isReady(crashed)).toBe(false);
    expect(run([{ kind: 'joined' }, { kind: 'crashed', restart: true }, { kind: 'joined' }])).toBe('running');
  });

  it('a crash without restart stays not ready for good', () => {
    const dead = run([{ kind: 'joined' }, { kind: 'stopped' }, { kind: 'crashed', restart: false }]);
    expect(dead).toBe('crashed');
    expect(run([{ kind: 'crashed', restart: false }, { kind: 'stopped' }, { kind: 'joined' }])).toBe(
      'crashed',
    );
  });

  it('a consumer relaunched after a crash for good is restarting, then ready once its group joins', () => {
    const dead: ConsumerSignal[] = [
      { kind: 'joined' },
      { kind: 'crashed', restart: false },
      { kind: 'stopped' },
    ];
    expect(run([...dead, { kind: 'relaunching' }])).toBe('restarting');
    expect(run([...dead, { kind: 'relaunching' }, { kind: 'joined' }])).toBe('running');
  });

  it('a stopped consumer is not ready', () => {
    expect(isReady(run([{ kind: 'joined' }, { kind: 'stopped' }]))).toBe(false);
  });
});
