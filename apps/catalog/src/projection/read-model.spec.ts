import {
  CategoryRow,
  decide,
  decideBatch,
  planFor,
  periodOf,
  ProductEvent,
  ProjectionPlan,
  SeenVersion,
  SnapshotLike,
  writeTimestamp,
} from './read-model';

const snap: SnapshotLike = {
  product_id: '65f0000000000000000000a1',
  version: 2,
  name: 'Galaxy S24',
  category_id: 'android',
  ancestors: ['electronics', 'phones', 'android'],
  price: 8999000,
  currency: 'RUB',
  attributes: { color: 'black' },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-02T00:00:00.000Z',
};

describe('read-model projection rules', () => {
  it('write timestamps grow with the version of one product', () => {
    const t = new Date('2026-01-01T00:00:00Z');
    expect(writeTimestamp(t, 2)).toBeGreaterThan(writeTimestamp(t, 1));
    expect(writeTimestamp(t, 1001)).toBeGreaterThan(writeTimestamp(t, 1000));
    expect(writeTimestamp(t, 1)).toBe(1767225600000001n);
  });

  it('periods are whole periods of creation time since the epoch, newer never smaller', () => {
    const day = 86_400_000;
    expect(periodOf(new Date(0), 30)).toBe(0);
    expect(periodOf(new Date(30 * day - 1), 30)).toBe(0);
    expect(periodOf(new Date(30 * day), 30)).toBe(1);
    expect(periodOf(new Date('2026-01-01T00:00:00Z'), 30)).toBe(Math.floor(20454 / 30));
    expect(periodOf(new Date('2026-01-01T00:00:00Z'), 1)).toBe(20454);
    const times = Array.from({ length: 50 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 7 * day + i));
    const periods = times.map((t) => periodOf(t, 30));
    expect(periods).toEqual([...periods].sort((a, b) => a - b));
  });

  it('a created product is written to products_by_id and fanned out to its category and every ancestor', () => {
    const plan = planFor({ type: 'ProductCreated', payload: snap }, 8);
    expect(plan.upsertProduct?.product_id).toBe(snap.product_id);
    expect(plan.upsertRows.map((r) => r.category_id)).toEqual(['electronics', 'phones', 'android']);
    expect(new Set(plan.upsertRows.map((r) => r.bucket)).size).toBe(1);
    expect(plan.deleteRows).toEqual([]);
    expect(plan.timestamp).toBe(writeTimestamp(new Date(snap.created_at), 2));
  });

  it('a category change deletes only the rows of categories the product left', () => {
    const e: ProductEvent = {
      type: 'ProductCategoryChanged',
      payload: {
        ...snap,
        version: 3,
        category_id: 'ios',
        ancestors: ['electronics', 'phones', 'ios'],
        previous_ancestors: snap.ancestors,
      },
    };
    const plan = planFor(e, 8);
    expect(plan.deleteRows.map((r) => r.category_id)).toEqual(['android']);
    expect(plan.upsertRows.map((r) => r.category_id)).toEqual(['electronics', 'phones', 'ios']);
  });

  it('a delete removes the product and every listing row', () => {
    const plan = planFor(
      {
        type: 'ProductDeleted',
        payload: {
          product_id: snap.product_id,
          version: 4,
          ancestors: snap.ancestors,
          created_at: snap.created_at,
        },
      },
      8,
    );
    expect(plan.deleteProduct).toBe(snap.product_id);
    expect(plan.deleteRows).toHaveLength(3);
    expect(plan.upsertRows).toEqual([]);
  });

  describe('decide: what the projector applies given the version it last applied', () => {
    const seen = (version: number, deleted: boolean, ancestors: readonly string[]): SeenVersion => ({
      product_id: snap.product_id,
      version,
      deleted,
      ancestors,
      created_at: new Date(snap.created_at),
    });

    it('applies anything for an unseen product and records the version and listing', () => {
      const d = decide({ type: 'ProductCreated', payload: snap }, 8, null);
      expect(d.apply && d.plan.seen).toMatchObject({ version: 2, deleted: false, ancestors: snap.ancestors });
    });

    it('refuses duplicates, older snapshots and anything at or below a delete', () => {
      const e: ProductEvent = { type: 'ProductUpdated', payload: snap };
      expect(decide(e, 8, seen(2, false, snap.ancestors))).toMatchObject({
        apply: false,
        reason: 'duplicate',
      });
      expect(decide(e, 8, seen(5, false, snap.ancestors))).toMatchObject({ apply: false, reason: 'stale' });
      expect(decide(e, 8, seen(3, true, []))).toMatchObject({ apply: false, reason: 'after-delete' });
    });

    it('removes the rows where the product is listed now when a skipped move left them', () => {
      const e: ProductEvent = {
        type: 'ProductPriceChanged',
        payload: { ...snap, version: 4, category_id: 'ios', ancestors: ['electronics', 'phones', 'ios'] },
      };
      const d = decide(e, 8, seen(2, false, ['electronics', 'phones', 'android']));
      expect(d.apply && d.plan.deleteRows.map((r) => r.category_id)).toEqual(['android']);
      expect(d.apply && d.plan.upsertRows.map((r) => r.category_id)).toEqual([
        'electronics',
        'phones',
        'ios',
      ]);
    });

    it('a delete records a deleted version with no listing', () => {
      const d = decide(
        {
          type: 'ProductDeleted',
          payload: {
            product_id: snap.product_id,
            version: 3,
            ancestors: ['gadgets'],
            created_at: snap.created_at,
          },
        },
        8,
        seen(2, false, snap.ancestors),
      );
      expect(d.apply && d.plan.seen).toMatchObject({ version: 3, deleted: true, ancestors: [] });
      expect(d.apply && d.plan.deleteRows.map((r) => r.category_id).sort()).toEqual([
        'android',
        'electronics',
        'gadgets',
        'phones',
      ]);
    });
  });

  describe('decideBatch: a consumed batch decided as if one event at a time', () => {
    const ev = (
      version: number,
      ancestors: string[],
      type: 'ProductUpdated' | 'ProductDeleted' = 'ProductUpdated',
    ): ProductEvent =>
      type === 'ProductDeleted'
        ? { type, payload: { product_id: snap.product_id, version, ancestors, created_at: snap.created_at } }
        : { type, payload: { ...snap, version, ancestors, category_id: ancestors[ancestors.length - 1]! } };
    const other = (version: number): ProductEvent => ({
      type: 'ProductUpdated',
      payload: { ...snap, product_id: '65f0000000000000000000b2', version },
    });

    /**
     * The rule of one write per product (ADR 0034 "Coalescing") over every applied event's own
     * plan: the newest plan, deleting every row position an earlier plan wrote or deleted that
     * the newest does not list.
     */
    function coalesced(plans: readonly ProjectionPlan[]): ProjectionPlan[] {
      const byProduct = new Map<string, ProjectionPlan[]>();
      for (const plan of plans) byProduct.set(plan.seen.product_id, [...(byProduct.get(plan.seen.product_id) ?? []), plan]);
      return [...byProduct.values()].map((list) => {
        const newest = list[list.length - 1]!;
        const kept = new Set(newest.upsertRows.map((r) => r.category_id));
        const deletes = new Map<string, CategoryRow>(newest.deleteRows.map((r) => [r.category_id, r]));
        for (const plan of list)
          for (const r of [...plan.upsertRows, ...plan.deleteRows])
            if (!kept.has(r.category_id) && !deletes.has(r.category_id))
              deletes.set(r.category_id, {
                category_id: r.category_id,
                bucket: r.bucket,
                created_at: r.created_at,
                product_id: r.product_id,
              });
        return { ...newest, deleteRows: [...deletes.values()] };
      });
    }

    /** What product_versions holds for the product before the batch. */
    const storedAt = (version: number, ancestors: readonly string[]): SeenVersion => ({
      product_id: snap.product_id,
      version,
      deleted: false,
      ancestors,
      created_at: new Date(snap.created_at),
    });

    /** The decisions applying the events one by one would take, each against the seen version the previous left. */
    function oneByOne(events: ProductEvent[], seen: Map<string, SeenVersion>) {
      const current = new Map(seen);
      return events.map((e) => {
        const d = decide(e, 8, current.get(e.payload.product_id) ?? null);
        if (d.apply) current.set(e.payload.product_id, d.plan.seen);
        return d.apply ? { apply: true, plan: d.plan } : { apply: false, reason: d.reason };
      });
    }

    it('refuses duplicates and older versions inside the batch and keeps the newest seen per product', () => {
      const A = ['electronics', 'phones', 'android'];
      const B = ['electronics', 'phones', 'ios'];
      const events = [
        ev(3, A),
        other(5),
        ev(2, A),
        ev(5, B),
        ev(3, A),
        other(4),
        ev(4, A),
        ev(6, B),
        ev(5, B),
        ev(6, B),
      ];
      const stored = storedAt(2, A);
      const seen = new Map([[snap.product_id, stored]]);
      const batch = decideBatch(events, 8, seen);
      const expected = oneByOne(events, seen);
      const plans = expected.flatMap((d) => (d.apply && d.plan ? [d.plan] : []));
      expect(batch.applied.map((e) => e.payload.version)).toEqual(plans.map((p) => p.seen.version));
      // what is written is the one-by-one plans coalesced, though only the newest of each product was planned
      expect(batch.writes).toEqual(coalesced(plans));
      expect(batch.skipped.map((s) => `${s.event.payload.version}:${s.reason}`)).toEqual([
        '2:stale',
        '3:stale',
        '4:stale',
        '4:stale',
        '5:stale',
        '6:duplicate',
      ]);
      expect(batch.skipped.map((s) => s.reason)).toEqual(
        expected.flatMap((d) => (d.apply ? [] : [d.reason])),
      );
      expect(batch.applied.map((e) => e.payload.version)).toEqual([3, 5, 5, 6]);
      expect(batch.seen.map((v) => [v.product_id.slice(-2), v.version])).toEqual([
        ['a1', 6],
        ['b2', 5],
      ]);
      // the move to B (v6 after v5) removes the listing in A the stored v2 and the batch's v3 made
      const mine = batch.writes.find((w) => w.seen.product_id === snap.product_id)!;
      expect(mine.deleteRows.map((r) => r.category_id)).toEqual(['android']);
      expect(mine.upsertRows.map((r) => [r.category_id, r.version])).toEqual(B.map((c) => [c, 6]));
    });

    it('writes one plan per product: the newest version, deleting every row position an earlier version of the batch had', () => {
      const A = ['electronics', 'phones', 'android'];
      const B = ['electronics', 'tablets', 'ipad'];
      const C = ['electronics', 'phones', 'ios'];
      const stored = storedAt(1, A);
      const moved = (version: number, from: string[], to: string[]): ProductEvent => ({
        type: 'ProductCategoryChanged',
        payload: { ...snap, version, ancestors: to, category_id: to[2]!, previous_ancestors: from },
      });
      // price change in A, moved to B, moved on to C, price change in C — and another product
      const events = [ev(2, A), moved(3, A, B), other(7), moved(4, B, C), ev(5, C)];
      const batch = decideBatch(events, 8, new Map([[snap.product_id, stored]]));
      expect(batch.applied).toHaveLength(5);
      expect(batch.writes).toHaveLength(2);
      const w = batch.writes.find((p) => p.seen.product_id === snap.product_id)!;
      expect(w.timestamp).toBe(writeTimestamp(new Date(snap.created_at), 5));
      expect(w.upsertProduct?.version).toBe(5);
      expect(w.upsertRows.map((r) => [r.category_id, r.version])).toEqual([
        ['electronics', 5],
        ['phones', 5],
        ['ios', 5],
      ]);
      // android (left at v3), tablets and ipad (passed through at v3, left at v4); never a kept row
      expect(w.deleteRows.map((r) => r.category_id).sort()).toEqual(['android', 'ipad', 'tablets']);
      expect(w.seen).toMatchObject({ version: 5, ancestors: C });
      expect(batch.writes.find((p) => p.seen.product_id !== snap.product_id)?.seen.version).toBe(7);
    });

    it('coalesces into a delete: the product and every row position of the batch go', () => {
      const A = ['electronics', 'phones', 'android'];
      const B = ['electronics', 'tablets', 'ipad'];
      const { writes } = decideBatch([ev(2, A), ev(3, B), ev(4, B, 'ProductDeleted')], 8, new Map());
      expect(writes).toHaveLength(1);
      const [w] = writes;
      expect(w?.deleteProduct).toBe(snap.product_id);
      expect(w?.upsertRows).toEqual([]);
      expect(w?.deleteRows.map((r) => r.category_id).sort()).toEqual([
        'android',
        'electronics',
        'ipad',
        'phones',
        'tablets',
      ]);
      expect(w?.timestamp).toBe(writeTimestamp(new Date(snap.created_at), 4));
    });

    it('keeps the deletes of where the product was listed before the batch when a move was never applied', () => {
      const A = ['electronics', 'phones', 'android'];
      const B = ['electronics', 'tablets', 'ipad'];
      // applied: v1 in A; the move to B (v2) was dead-lettered; the batch brings two changes in B
      const stored = storedAt(1, A);
      const seen = new Map([[snap.product_id, stored]]);
      const events = [ev(3, B), ev(4, B)];
      const batch = decideBatch(events, 8, seen);
      expect(batch.writes).toEqual(coalesced(oneByOne(events, seen).flatMap((d) => (d.apply && d.plan ? [d.plan] : []))));
      expect(batch.writes[0]!.deleteRows.map((r) => r.category_id).sort()).toEqual(['android', 'phones']);
    });

    it('plans only the newest version of a product: the older ones are read for their version and listing only', () => {
      const A = ['electronics', 'phones', 'android'];
      const B = ['electronics', 'tablets', 'ipad'];
      // the card and listing fields of each version, counted when read: only planning reads them
      const reads = new Map<number, number>();
      const counted = (version: number, ancestors: string[]): ProductEvent => {
        const payload = { ...snap, version, ancestors, category_id: ancestors[2]! };
        for (const field of ['name', 'price', 'attributes'] as const) {
          const value = payload[field];
          Object.defineProperty(payload, field, {
            get: () => {
              reads.set(version, (reads.get(version) ?? 0) + 1);
              return value;
            },
          });
        }
        return { type: 'ProductUpdated', payload };
      };
      const versions = Array.from({ length: 50 }, (_, i) => counted(i + 2, i === 20 ? B : A));
      const batch = decideBatch(versions, 8, new Map());
      expect(batch.applied).toHaveLength(50);
      expect([...reads.keys()]).toEqual([51]);
      expect(batch.writes).toHaveLength(1);
      expect(batch.writes[0]!.upsertProduct?.version).toBe(51);
      // v22 passed through B: the newest (in A) deletes its rows there
      expect(batch.writes[0]!.deleteRows.map((r) => r.category_id).sort()).toEqual(['ipad', 'tablets']);
    });

    it('refuses everything after a delete in the same batch', () => {
      const A = ['electronics', 'phones', 'android'];
      const batch = decideBatch([ev(2, A), ev(4, A, 'ProductDeleted'), ev(3, A), ev(4, A)], 8, new Map());
      expect(batch.applied.map((e) => e.payload.version)).toEqual([2, 4]);
      expect(batch.skipped.map((s) => s.reason)).toEqual(['after-delete', 'after-delete']);
      expect(batch.seen).toEqual([expect.objectContaining({ version: 4, deleted: true })]);
    });
  });
});
