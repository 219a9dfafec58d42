import { z } from 'zod';
import { UserId } from '@mw/contracts';
import { ACTIVITY_TYPES, type ActivityEvent } from './activity';

export const ActivityItemView = z.object({
  event_time: z.iso
    .datetime()
    .meta({ description: 'When it happened (for order events: when orders recorded it)' }),
  event_type: z.enum(ACTIVITY_TYPES),
  event_id: z
    .string()
    .meta({
      description: 'The message id, cart revision, checkout, guest cart or session the row was written from',
    }),
  resource_id: z
    .string()
    .nullable()
    .meta({
      description:
        'What it is about: a product (item events), cart, order, checkout (a rejected one) or session',
    }),
  details: z
    .record(z.string(), z.unknown())
    .meta({ description: 'Type-specific facts (money as decimal strings)' }),
});
export type ActivityItemView = z.infer<typeof ActivityItemView>;

export const ActivityPage = z.object({
  user_id: UserId.meta({
    description: 'Whose activity this is (the token subject unless support named a user)',
  }),
  items: z.array(ActivityItemView),
  next_cursor: z
    .string()
    .nullable()
    .meta({ description: 'Pass as `cursor` for the next page; null when there is nothing older' }),
});
export type ActivityPage = z.infer<typeof ActivityPage>;

export function activityView(e: ActivityEvent): ActivityItemView {
  return {
    event_time: e.event_time.toISOString(),
    event_type: e.event_type,
    event_id: e.event_id,
    resource_id: e.resource_id,
    details: { ...e.details },
  };
}
