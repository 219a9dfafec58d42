import { testToken } from './test-resources';
import { uniqueName } from './test-env';

describe('test-made names', () => {
  const now = Date.UTC(2026, 5, 1);

  it('are recognised by the uniqueName token, wherever it sits, with the time it was made', () => {
    const made = now - 3_600_000;
    const token = `${made.toString(36)}_0a1b2c`;
    for (const name of [
      `carts_${token}`,
      `catalog_read_t_${token}`,
      `test.carts.checkout_${token}.dlq`,
      `catalog.products.v1.e2e_${token}`,
    ]) {
      expect(testToken(name, now)).toEqual({ token, createdAt: made });
    }
    expect(testToken(uniqueName('carts').toLowerCase())?.createdAt).toBeGreaterThan(Date.now() - 60_000);
  });

  it('never include the names a developer works with, nor look-alikes with an implausible time', () => {
    for (const name of [
      'catalog',
      'catalog_read',
      'carts',
      'orders',
      'inventory',
      'admin',
      'config',
      'local',
      'system_schema',
      'catalog.products.v1',
      'inventory.events.v1.dlq',
      'orders_20240101_abcdef',
      `x_${(now + 3 * 86_400_000).toString(36)}_abcdef`,
      `x_${now.toString(36)}_abcdeg`,
      `x_${now.toString(36)}_abcdef0`,
    ]) {
      expect(testToken(name, now)).toBeUndefined();
    }
  });
});
