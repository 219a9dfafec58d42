import { Registry } from 'prom-client';
import { HealthRegistry } from '../health/health';
import { registerReadinessGauge } from './metrics';

describe('service_readiness_check_up', () => {
  it('one series per readiness check: 1 when it answers, 0 when it fails', async () => {
    const health = new HealthRegistry();
    health.register({ name: 'mongodb', check: async () => undefined });
    health.register({ name: 'kafka', check: () => Promise.reject(new Error('broker down')) });
    const registry = new Registry();
    registerReadinessGauge(registry, health);
    const text = await registry.metrics();
    expect(text).toContain('service_readiness_check_up{check="mongodb"} 1');
    expect(text).toContain('service_readiness_check_up{check="kafka"} 0');
  });
});
