import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceEnv, STACK_SERVICES, stackSettings, webAppProcess, webOrigins } from './services';

const INFRA = {
  KAFKA_BROKERS: '127.0.0.1:19092',
  KAFKA_SASL_MECHANISM: 'none',
  OIDC_ISSUER: 'http://127.0.0.1:18080/realms/mobile-world',
};
const carts = STACK_SERVICES.find((s) => s.name === 'carts')!;

describe('npm start serves the web app', () => {
  it('runs it with the whole stack on 4400 + STACK_PORT_OFFSET, not with a subset of services or STACK_WEB=0', () => {
    expect(stackSettings({}).web).toBe(true);
    expect(webOrigins(stackSettings({ STACK_PORT_OFFSET: '200' }))).toEqual([
      'http://127.0.0.1:4600',
      'http://localhost:4600',
    ]);
    expect(stackSettings({ STACK_SERVICES: 'catalog,catalog-projector' }).web).toBe(false);
    expect(stackSettings({ STACK_WEB: '0' }).web).toBe(false);
    expect(() => stackSettings({ STACK_WEB: 'yes' })).toThrow('STACK_WEB must be 0 or 1');
  });

  it('lets the app’s origin through the services’ CORS only when the app runs', () => {
    expect(serviceEnv(carts, INFRA, stackSettings({ STACK_PORT_OFFSET: '200' }))['CORS_ORIGINS']).toBe(
      'http://127.0.0.1:4600,http://localhost:4600',
    );
    expect(serviceEnv(carts, INFRA, stackSettings({ STACK_WEB: '0' }))['CORS_ORIGINS']).toBeUndefined();
  });

  it('gives orders, and only orders, the ops password for the operator’s Kafka pages', () => {
    const infra = { ...INFRA, KAFKA_PASSWORD_OPS: 'ops-pw' };
    const orders = STACK_SERVICES.find((s) => s.name === 'orders')!;
    expect(serviceEnv(orders, infra, stackSettings({}))['OPS_KAFKA_PASSWORD']).toBe('ops-pw');
    expect(serviceEnv(carts, infra, stackSettings({}))['OPS_KAFKA_PASSWORD']).toBeUndefined();
    expect(serviceEnv(orders, INFRA, stackSettings({}))['OPS_KAFKA_PASSWORD']).toBeUndefined();
  });

  it('points the served app at this stack’s services and issuer', () => {
    const root = mkdtempSync(join(tmpdir(), 'web-app-'));
    mkdirSync(join(root, 'dist/apps/web'), { recursive: true });
    expect(() => webAppProcess(root, stackSettings({}), INFRA, '/x')).toThrow('dist/apps/web missing');
    writeFileSync(join(root, 'dist/apps/web/index.html'), '<!doctype html>');
    const p = webAppProcess(root, stackSettings({ STACK_PORT_OFFSET: '200' }), INFRA, '/x');
    expect(p.args).toEqual(expect.arrayContaining(['preview', '--port', '4600', '--strictPort']));
    expect(p.env).toMatchObject({
      WEB_API_CATALOG: 'http://127.0.0.1:3201',
      WEB_API_CARTS: 'http://127.0.0.1:3203',
      OIDC_ISSUER: INFRA.OIDC_ISSUER,
      MW_STACK_DIR: '/x',
    });
  });
});
