import { messageTypeOf, recordsOfTypes } from './type-filter';

const rec = (type?: string | Buffer | (string | Buffer)[]) => ({
  id: String(type),
  headers: type === undefined ? {} : { 'x-message-type': type },
});

describe('type header filter', () => {
  it('reads the type from the header, as a Buffer or a string, first value of a list', () => {
    expect(messageTypeOf(rec(Buffer.from('StockLevelChanged')))).toBe('StockLevelChanged');
    expect(messageTypeOf(rec('StockReserved'))).toBe('StockReserved');
    expect(messageTypeOf(rec([Buffer.from('A'), 'B']))).toBe('A');
    expect(messageTypeOf(rec())).toBeUndefined();
    expect(messageTypeOf({})).toBeUndefined();
  });

  it('keeps the followed types and records without the header (they are parsed and validated), drops the rest', () => {
    const records = [
      rec(Buffer.from('StockLevelChanged')),
      rec(Buffer.from('StockReserved')),
      rec(),
      rec('StockCommitted'),
    ];
    expect(recordsOfTypes(records, new Set(['StockLevelChanged'])).map((r) => r.id)).toEqual([
      'StockLevelChanged',
      'undefined',
    ]);
  });
});
