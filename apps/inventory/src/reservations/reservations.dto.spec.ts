import { ReservationView, toReservationView } from './reservations.dto';
import type { ReservationDoc } from './reservation';

describe('reservation view', () => {
  const at = new Date('2026-03-14T09:26:50.102Z');
  const base: ReservationDoc = {
    _id: '66f1c0ffee00000000000042',
    zone: 'MSK',
    lines: [{ product_id: '5eed00000000000000000405', qty: 2 }],
    status: 'rejected',
    expires_at: at,
    hold_ms: 600_000,
    created_at: at,
    updated_at: at,
  };

  it('shows the answer of a rejected order and none of the bookkeeping', () => {
    const doc: ReservationDoc = {
      ...base,
      pending: 'undo',
      release_answered: true,
      rejection: { code: 'INVENTORY.INSUFFICIENT_STOCK', shortages: [{ product_id: '5eed00000000000000000405', requested: 2, available: 1 }] },
      _outbox: [{ id: 'e1', topic: 'inventory.events.v1', key: base._id, envelope: '{}', created_at: at }],
    };
    const view = toReservationView(doc);
    expect(view).toEqual({
      order_id: base._id,
      zone: 'MSK',
      lines: base.lines,
      status: 'rejected',
      expires_at: '2026-03-14T09:26:50.102Z',
      rejection: doc.rejection,
      created_at: '2026-03-14T09:26:50.102Z',
      updated_at: '2026-03-14T09:26:50.102Z',
    });
    expect(ReservationView.parse(view)).toEqual(view);
  });

  it('shows a tombstone (commit before any reserve) with its commit failure', () => {
    const view = toReservationView({ ...base, zone: '', lines: [], status: 'released', tombstone: true, commit_failure: 'INVENTORY.RESERVATION_NOT_FOUND' });
    expect(view).toMatchObject({ zone: '', lines: [], status: 'released', commit_failure: 'INVENTORY.RESERVATION_NOT_FOUND' });
    expect(view).not.toHaveProperty('tombstone');
    expect(ReservationView.parse(view)).toEqual(view);
  });
});
