import { MongoClient } from 'mongodb';
import { AppError } from '@mw/platform';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName } from '@mw/testing';
import { ensureCatalogSchema } from '../shared/catalog-db';
import { catalogOn, inconsistencies, seeded } from '../test/move-kit';
import { MoveJournal } from './category-moves.repository';

/**
 * Many category moves at once on a random tree, from three service instances sharing one
 * database (three API processes): moves that would interleave or build a cycle must not both
 * happen — one wins, the others get a 409 code — and afterwards every category's ancestors
 * equal the walk up its parents and every product's ancestry matches its category.
 */
describe('concurrent category moves', () => {
  const env = testEnv();
  const name = uniqueName('catalog_moves').toLowerCase();
  let mongo: MongoClient;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    await ensureCatalogSchema(mongo.db(name));
  });

  afterAll(async () => {
    await mongo.db(name).dropDatabase();
    await mongo.close();
  });

  it('keep the tree and the products consistent; losers get 409 codes, nothing else', async () => {
    const db = mongo.db(name);
    const instances = [1, 2, 3].map(() => catalogOn(db, { leaseMs: 10_000, sweepMs: 60_000 }));
    const { categories, products } = instances[0]!;
    const rnd = seeded(20261122);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const ids: string[] = [];
    const slugs: string[] = [];
    for (let i = 0; i < 24; i++) {
      const parent = i < 3 || rnd() < 0.15 ? null : pick(ids);
      const c = await categories.create({ name: `C${i}`, slug: `c-${i}`, parent_id: parent });
      ids.push(c.id);
      slugs.push(c.slug);
    }
    for (let i = 0; i < 30; i++)
      await products.create({ name: `P${i}`, category_id: pick(ids), price: 1000 + i, attributes: {} });
    expect(await inconsistencies(db)).toEqual([]);

    const outcomes: Record<string, number> = {};
    const allowed = new Set([
      'CATALOG.MOVE_IN_PROGRESS',
      'CATALOG.MOVE_INTO_OWN_SUBTREE',
      'CATALOG.TREE_TOO_DEEP',
      'CATALOG.CONCURRENT_MODIFICATION',
    ]);
    for (let wave = 0; wave < 10; wave++) {
      const moves = Array.from({ length: 6 }, (_, k) => {
        const svc = instances[k % instances.length]!.categories;
        const target = rnd() < 0.1 ? null : pick(ids);
        return svc.move(pick(slugs), target);
      });
      for (const r of await Promise.allSettled(moves)) {
        const key =
          r.status === 'fulfilled'
            ? 'moved'
            : r.reason instanceof AppError
              ? r.reason.code
              : String(r.reason);
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
    }
    console.log('move outcomes', outcomes);
    expect(await inconsistencies(db)).toEqual([]);
    for (const k of Object.keys(outcomes)) if (k !== 'moved') expect(allowed).toContain(k);
    expect(outcomes['moved'] ?? 0).toBeGreaterThanOrEqual(5);
    expect(await new MoveJournal(db).pendingCount()).toBe(0);
  });
});
