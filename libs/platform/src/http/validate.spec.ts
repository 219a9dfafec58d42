import { z } from 'zod';
import { AppError, httpStatusOf, kafkaActionOf } from '../errors/app-error';
import { validate } from './validate';

const Query = z.strictObject({ price_min: z.coerce.number().int().nonnegative().optional(), category: z.string().max(24).optional() });

describe('validate (untrusted input)', () => {
  it('rejects operator injection as an unknown field, naming it', () => {
    try {
      validate(Query, { 'price[$gt]': '' }, 'query');
      throw new Error('expected AppError');
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).errors[0]).toEqual({ field: 'query', message: 'unknown field(s): price[$gt]' });
      expect(httpStatusOf((e as AppError).kind)).toBe(400);
    }
  });

  it('rejects an object where a string is expected ({"$gt": ""})', () => {
    expect(() => validate(Query, { category: { $gt: '' } }, 'query')).toThrow(/query\.category/);
  });

  it('returns typed data when valid', () => {
    expect(validate(Query, { price_min: '100' }, 'query')).toEqual({ price_min: 100 });
  });

  it('maps error kinds to Kafka actions', () => {
    expect(kafkaActionOf(new Error('socket hang up'))).toBe('retry');
    expect(kafkaActionOf(AppError.validation([]))).toBe('dead-letter');
    expect(kafkaActionOf(new AppError('X', 'unavailable', 'db down'))).toBe('wait');
  });
});
