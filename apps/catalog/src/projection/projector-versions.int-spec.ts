import { Client } from 'cassandra-driver';
import { Registry } from 'prom-client';
import { createMessage, EnvelopeOf } from '@mw/contracts';
import { uniqueName } from '@mw/testing';
import { connectReadModelKeyspace } from '../test/read-model-keyspace';
import { ProjectionMetrics } from './projection.metrics';
import { ProjectorService } from './projector.service';
import { decideBatch } from './read-model';
import { ReadModelRepository } from './read-model.repository';

const PERIOD_DAYS = 4;
const trace = { correlation_id: 'projector-versions', causation_id: null };
const CREATED_AT = '2026-03-01T10:00:00.000Z';
const [A, B, C, ROOT] = ['aa', 'bb', 'cc', 'ee'].map((x) => x.repeat(12)) as [string, string, string, string];

type Env = EnvelopeOf<'catalog.products.v1'>;

function snapshot(productId: string, version: number, category: string, price = 100_000) {
  return {
    product_id: productId,
    version,
    name: `Product ${productId.slice(-4)}`,
    category_id: category,
    ancestors: [ROOT, category],
    price,
    currency: 'RUB' as const,
    attributes: {},
    created_at: CREATED_AT,
    updated_at: new Date(Date.parse(CREATED_AT) + version * 1000).toISOString(),
  };
}
const created = (id: string, v: number, cat: string): Env =>
  createMessage('catalog.products.v1', 'ProductCreated', snapshot(id, v, cat), trace).envelope;
const priced = (id: string, v: number, cat: string, price: number): Env =>
  createMessage(
    'catalog.products.v1',
    'ProductPriceChanged',
    { ...snapshot(id, v, cat, price), previous_price: 100_000 },
    trace,
  ).envelope;
const moved = (id: string, v: number, from: string, to: string): Env =>
  createMessage(
    'catalog.products.v1',
    'ProductCategoryChanged',
    { ...snapshot(id, v, to), previous_category_id: from, previous_ancestors: [ROOT, from] },
    trace,
  ).envelope;
const deleted = (id: string, v: number, cat: string): Env =>
  createMessage(
    'catalog.products.v1',
    'ProductDeleted',
    {
      product_id: id,
      version: v,
      category_id: cat,
      ancestors: [ROOT, cat],
      created_at: CREATED_AT,
      deleted_at: new Date().toISOString(),
    },
    trace,
  ).envelope;

/**
 * The projector against real Cassandra, fed the way a DLQ redrive or a lost message would feed
 * it: a delete's tombstones gone (purged after gc_grace_seconds) and then an older event; an
 * intermediate ProductCategoryChanged that never arrives.
 */
describe('projector versions: no resurrection, no orphan rows', () => {
  const keyspace = uniqueName('proj_versions').toLowerCase();
  let cass: Client;
  let projector: ProjectorService;

  beforeAll(async () => {
    cass = await connectReadModelKeyspace(keyspace);
    projector = new ProjectorService(new ReadModelRepository(cass), PERIOD_DAYS);
  });

  afterAll(async () => {
    await cass?.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
    await cass?.shutdown();
  });

  const card = async (id: string) =>
    (await cass.execute('SELECT * FROM products_by_id WHERE product_id = ?', [id], { prepare: true })).rows;
  const listedIn = async (id: string): Promise<string[]> =>
    (
      await cass.execute('SELECT category_id, product_id FROM products_by_category', [], { fetchSize: 5000 })
    ).rows
      .filter((r) => r['product_id'] === id)
      .map((r) => r['category_id'] as string)
      .sort();

  it('an event redriven after the delete’s tombstones were purged does not bring the product back', async () => {
    const id = '65f0000000000000000000d1';
    const v1 = created(id, 1, A);
    const v2 = priced(id, 2, A, 90_000);
    await projector.apply(v1);
    await projector.apply(deleted(id, 3, A));
    expect(await card(id)).toHaveLength(0);
    // gc_grace_seconds later, compaction has dropped the tombstones and the shadowed cells: the
    // tables hold nothing for the product — what TRUNCATE leaves (product_versions is kept).
    await cass.execute('TRUNCATE products_by_id');
    await cass.execute('TRUNCATE products_by_category');
    // A redrive from the DLQ (retention 30 days) delivers the older events now.
    await projector.apply(v2);
    await projector.apply(v1);
    expect(await card(id)).toHaveLength(0);
    expect(await listedIn(id)).toEqual([]);
  });

  it('a dead-lettered ProductCategoryChanged leaves no orphan row once a later event arrives', async () => {
    const id = '65f0000000000000000000d2';
    await projector.apply(created(id, 1, A));
    expect(await listedIn(id)).toEqual([A, ROOT].sort());
    const lost = moved(id, 2, A, B); // dead-lettered: never applied
    await projector.apply(priced(id, 3, B, 80_000));
    expect(await listedIn(id)).toEqual([B, ROOT].sort());
    expect((await card(id))[0]?.['category_id']).toBe(B);
    // Redriven later: older than what was applied, refused.
    await projector.apply(lost);
    expect(await listedIn(id)).toEqual([B, ROOT].sort());
    // And a move after that starts from where the product really is.
    await projector.apply(moved(id, 4, B, C));
    expect(await listedIn(id)).toEqual([C, ROOT].sort());
  });

  const seenVersion = async (id: string): Promise<number> =>
    Number(
      (
        await cass.execute('SELECT version FROM product_versions WHERE product_id = ?', [id], {
          prepare: true,
        })
      ).first()?.['version'] ?? 0,
    );
  const rowsOf = async (id: string) =>
    (
      await cass.execute('SELECT category_id, product_id, version, price FROM products_by_category', [], {
        fetchSize: 5000,
      })
    ).rows
      .filter((r) => r['product_id'] === id)
      .map((r) => `${r['category_id'] as string}:v${Number(r['version'])}:${Number(r['price'])}`)
      .sort();

  it('a batch coalescing several versions of a product, moved twice in the middle, ends at the newest version in the right rows only', async () => {
    const id = '65f0000000000000000000d4';
    const other = '65f0000000000000000000d5';
    await projector.applyAll([created(id, 1, A)]);
    // One fetched batch: a price change in A, moved to B, moved on to C, a price change in C, and
    // another product between them. Only v5 is written; the rows of A (left at v2) and of B
    // (passed through inside the batch) must still go.
    await projector.applyAll([
      priced(id, 2, A, 90_000),
      moved(id, 3, A, B),
      created(other, 1, B),
      moved(id, 4, B, C),
      priced(id, 5, C, 70_000),
    ]);
    expect(await rowsOf(id)).toEqual([`${C}:v5:70000`, `${ROOT}:v5:70000`].sort());
    expect((await card(id))[0]?.['category_id']).toBe(C);
    expect(Number((await card(id))[0]?.['version'])).toBe(5);
    expect(await seenVersion(id)).toBe(5);
    expect(await listedIn(other)).toEqual([B, ROOT].sort());

    // A stale batch written after it — an overlapping consumer during a rebalance, past the
    // version check — is shadowed by the newer timestamps: its coalesced rows change nothing.
    const repo = new ReadModelRepository(cass);
    const stale = decideBatch(
      [priced(id, 2, A, 1), moved(id, 3, A, B), priced(id, 4, B, 2)],
      PERIOD_DAYS,
      new Map(),
    );
    expect(stale.writes).toHaveLength(1);
    await repo.applyAll(stale.writes, []);
    expect(await rowsOf(id)).toEqual([`${C}:v5:70000`, `${ROOT}:v5:70000`].sort());
    expect(Number((await card(id))[0]?.['price'])).toBe(70_000);
  });

  it('a member that met a product before a rebalance decides against what the other member applied meanwhile', async () => {
    const id = '65f0000000000000000000d6';
    const mine = new ProjectorService(new ReadModelRepository(cass), PERIOD_DAYS);
    const theirs = new ProjectorService(new ReadModelRepository(cass), PERIOD_DAYS);
    await mine.applyAll([created(id, 1, A)]); // remembered: v1, listed in A
    // Rebalance: the partition goes to the other member, which moves the product to B; the move
    // on to C (v3) is dead-lettered there.
    mine.rebalanced();
    await theirs.applyAll([moved(id, 2, A, B)]);
    // Rebalance back: a price change in C. Decided against v1 in A (what this member remembered),
    // the row in B would stay behind; against product_versions (v2 in B) it goes.
    mine.rebalanced();
    await mine.applyAll([priced(id, 4, C, 60_000)]);
    expect(await listedIn(id)).toEqual([C, ROOT].sort());
    expect(await seenVersion(id)).toBe(4);
  });

  it('a member remembers the versions it applied until a rebalance', async () => {
    const id = '65f0000000000000000000d7';
    const metrics = new ProjectionMetrics(new Registry());
    const member = new ProjectorService(new ReadModelRepository(cass), PERIOD_DAYS, metrics);
    const lookups = async (source: string) =>
      (await metrics.seenLookups.get()).values.find((v) => v.labels.source === source)?.value ?? 0;
    await member.applyAll([created(id, 1, A)]);
    await member.applyAll([priced(id, 2, A, 90_000), priced(id, 3, A, 80_000)]);
    await member.applyAll([priced(id, 3, A, 80_000)]);
    expect([await lookups('cassandra'), await lookups('memory')]).toEqual([1, 2]);
    member.rebalanced();
    await member.applyAll([priced(id, 4, A, 70_000)]);
    expect([await lookups('cassandra'), await lookups('memory')]).toEqual([2, 2]);
    expect((await metrics.skipped.get()).values).toEqual([
      expect.objectContaining({ labels: { type: 'ProductPriceChanged', reason: 'duplicate' }, value: 1 }),
    ]);
    expect(Number((await card(id))[0]?.['price'])).toBe(70_000);
  });

  it('a delete after a lost move removes the rows where the product is actually listed', async () => {
    const id = '65f0000000000000000000d3';
    await projector.apply(created(id, 1, A));
    // v2 (moved to B) is lost; the delete carries the last ancestry of the write model (B).
    await projector.apply(deleted(id, 3, B));
    expect(await listedIn(id)).toEqual([]);
    expect(await card(id)).toHaveLength(0);
  });
});
