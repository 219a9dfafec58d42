import { Carts, createMessage, decodeEnvelope, dlqTopicOf, exportJsonSchemas, topicNames } from './index';

const trace = { correlation_id: 'saga-1', causation_id: null };
const id = '65f000000000000000000001';

describe('contracts registry', () => {
  it('builds an envelope keyed by the aggregate id and decodes it back', () => {
    const msg = createMessage(
      'inventory.commands.v1',
      'ReserveStock',
      { order_id: id, zone: 'MSK', lines: [{ product_id: id, qty: 2 }], hold_seconds: 900 },
      trace,
    );
    expect(msg.key).toBe(id);
    expect(msg.envelope.version).toBe(1);
    const decoded = decodeEnvelope('inventory.commands.v1', JSON.parse(JSON.stringify(msg.envelope)));
    expect(decoded).toEqual({ ok: true, envelope: msg.envelope });
  });

  it('rejects a payload that breaks the schema at runtime, naming the field', () => {
    expect(() =>
      createMessage(
        'inventory.commands.v1',
        'ReserveStock',
        { order_id: id, zone: 'MSK', lines: [{ product_id: id, qty: 1.5 }], hold_seconds: 900 },
        trace,
      ),
    ).toThrow(/lines/);
  });

  it.each([
    ['not an object', 'hello', /invalid envelope/],
    ['unknown type', { ...validEnvelope(), type: 'DropDatabase' }, /unknown message type "DropDatabase"/],
    ['future version', { ...validEnvelope(), version: 9 }, /unsupported version 9/],
    ['negative qty', withPayload({ order_id: id, zone: 'MSK', lines: [{ product_id: id, qty: -1 }], hold_seconds: 1 }), /lines\.0\.qty/],
    ['fractional qty', withPayload({ order_id: id, zone: 'MSK', lines: [{ product_id: id, qty: 0.5 }], hold_seconds: 1 }), /lines\.0\.qty/],
    ['operator injection in id', withPayload({ order_id: { $gt: '' }, zone: 'MSK', lines: [], hold_seconds: 1 }), /order_id/],
    ['malformed id', withPayload({ order_id: 'zz', zone: 'MSK', lines: [{ product_id: id, qty: 1 }], hold_seconds: 1 }), /order_id/],
  ])('rejects %s with a reason', (_name, value, reason) => {
    const result = decodeEnvelope('inventory.commands.v1', value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('names a dead-letter topic per topic', () => {
    expect(dlqTopicOf('inventory.commands.v1')).toBe('inventory.commands.v1.dlq');
  });

  it('exports a JSON Schema for every message of every topic', () => {
    const schemas = exportJsonSchemas();
    expect(new Set(schemas.map((s) => s.file.split('/')[0]))).toEqual(new Set(topicNames));
    const reserve = schemas.find((s) => s.file === 'inventory.commands.v1/ReserveStock.v1.schema.json');
    expect(reserve?.schema['x-kafka-key']).toBe('payload.order_id');
    expect(JSON.stringify(reserve?.schema)).toContain('"required"');
  });
});

function validEnvelope() {
  return {
    id: '6f1c2a7e-8d4b-4c1a-9f2e-1b2c3d4e5f60',
    type: 'ReleaseStock',
    version: 1,
    occurred_at: '2026-11-21T10:00:00.000Z',
    correlation_id: 'saga-1',
    causation_id: null,
    payload: { order_id: id },
  };
}

function withPayload(payload: unknown) {
  return { ...validEnvelope(), type: 'ReserveStock', payload };
}

describe('the order id of a checkout', () => {
  it('is the first 24 hex of sha-256("order:" + checkout_id), the same for every caller', () => {
    // fixed vector: carts answers it, orders stores the order under it, the web app links to it
    expect(Carts.orderIdOfCheckout('7d3c9a8e-1b2f-4c5d-9e6f-0a1b2c3d4e5f')).toBe('075e8c74feab546a66758d71');
    expect(Carts.orderIdOfCheckout('other')).not.toBe(Carts.orderIdOfCheckout('7d3c9a8e-1b2f-4c5d-9e6f-0a1b2c3d4e5f'));
  });
});
