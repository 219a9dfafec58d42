import { z } from 'zod';

/** MongoDB ObjectId as 24 lowercase/uppercase hex characters (products, categories, orders). */
export const ObjectIdHex = z.string().regex(/^[0-9a-fA-F]{24}$/, 'must be a 24-character hex ObjectId');

/** RFC 4122 uuid (carts, sessions, message ids). */
export const Uuid = z.uuid();

/** Opaque user id issued by the identity provider. */
export const UserId = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:@-]+$/, 'must be an opaque id of letters, digits and ._:@-');

/** Zone code such as MSK, SPB, EKB. Which zones exist is configuration, checked by each service. */
export const ZoneCode = z.string().regex(/^[A-Z]{2,8}$/, 'must be an upper-case zone code such as MSK');

/** Money in integer minor units (kopecks); never a binary float. Upper bound keeps it a safe integer. */
export const MinorUnits = z
  .number()
  .int('must be an integer number of minor units')
  .nonnegative()
  .max(1_000_000_000_000);

/** A quantity of items: a positive whole number. */
export const Quantity = z.number().int('must be a whole number').positive().max(100_000);

export const Currency = z.literal('RUB');

/** ISO-8601 timestamp with offset, e.g. 2026-11-21T10:00:00.000Z */
export const IsoDateTime = z.iso.datetime({ offset: true });

/** Monotonic aggregate version, used for idempotency and for `USING TIMESTAMP` in projections. */
export const AggregateVersion = z.number().int().positive();
