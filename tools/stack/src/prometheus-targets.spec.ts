/**
 * What Prometheus scrapes: the stack's services at their ports (npm start writes them for local
 * Prometheus), and docker-compose.yml's configuration generated from the same list.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { composePrometheusConfig } from '@mw/infra';
import { STACK_SERVICES, scrapeTargets, stackSettings } from './services';

const ROOT = join(__dirname, '../../..');
const COMPOSE_CONFIG = join(ROOT, 'tools/infra/prometheus/prometheus-compose.yml');

describe('Prometheus scrape targets', () => {
  it('every service of the stack, at its port with STACK_PORT_OFFSET, job = the service', () => {
    const settings = stackSettings({ STACK_PORT_OFFSET: '100', STACK_SERVICES: 'catalog,orders' });
    expect(scrapeTargets(settings)).toEqual([
      { job: 'catalog', address: '127.0.0.1:3101' },
      { job: 'orders', address: '127.0.0.1:3104' },
    ]);
  });

  it('docker-compose.yml: tools/infra/prometheus/prometheus-compose.yml is the generated configuration', () => {
    const targets = STACK_SERVICES.map((s) => ({ job: s.name, address: `${s.name}:${s.port}` }));
    const expected = composePrometheusConfig(ROOT, targets);
    if (process.env['UPDATE_COMPOSE_PROMETHEUS'] === '1') writeFileSync(COMPOSE_CONFIG, expected);
    expect(readFileSync(COMPOSE_CONFIG, 'utf8')).toBe(expected);
  });

  it('docker-compose.yml runs the official image with that configuration and the rules', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { image?: string; volumes?: string[] }>;
    };
    const prometheus = compose.services['prometheus'];
    expect(prometheus?.image).toMatch(/^prom\/prometheus:v\d/);
    expect(prometheus?.volumes).toEqual(
      expect.arrayContaining([
        './tools/infra/prometheus/prometheus-compose.yml:/etc/prometheus/prometheus.yml:ro',
        './tools/infra/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro',
      ]),
    );
    for (const s of STACK_SERVICES) expect(Object.keys(compose.services)).toContain(s.name);
  });
});
