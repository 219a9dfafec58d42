import { Db, ObjectId } from 'mongodb';
import pino from 'pino';
import { CategoriesRepository } from '../categories/categories.repository';
import { CategoriesService } from '../categories/categories.service';
import { Category, productAncestry, treeInconsistencies } from '../categories/category';
import { ProductsReparenter } from '../products/products-reparenter';
import { ProductsRepository } from '../products/products.repository';
import { ProductsService } from '../products/products.service';
import { PRODUCTS, ProductDoc } from '../shared/catalog-db';

/** Test kit for category moves: the services on a given database, and the invariants to check. */
export function catalogOn(db: Db, move: { leaseMs: number; sweepMs: number }) {
  const repo = new CategoriesRepository(db);
  const prodRepo = new ProductsRepository(db);
  const categories = new CategoriesService(
    repo,
    new ProductsReparenter(prodRepo),
    pino({ level: 'silent' }),
    {
      CATALOG_MOVE_LEASE_MS: move.leaseMs,
      CATALOG_MOVE_SWEEP_MS: move.sweepMs,
    },
  );
  return { repo, categories, products: new ProductsService(prodRepo, repo) };
}

/**
 * Every category's stored ancestors equal the walk up its parents (no cycle), and every live
 * product's ancestors equal its category's ancestry. Empty: consistent.
 */
export async function inconsistencies(db: Db): Promise<string[]> {
  const all: Category[] = await new CategoriesRepository(db).findAll();
  const out = treeInconsistencies(all).map((p) => `category ${p.id}: ${p.problem}`);
  const byId = new Map(all.map((c) => [c.id, c]));
  for await (const p of db.collection<ProductDoc>(PRODUCTS).find({ deleted_at: null })) {
    const c = byId.get(p.category_id.toHexString());
    const want = c ? productAncestry(c).join('/') : 'missing category';
    const got = p.ancestors.map((a: ObjectId) => a.toHexString()).join('/');
    if (want !== got) out.push(`product ${p._id.toHexString()}: ${got} ≠ ${want}`);
  }
  return out;
}

export function seeded(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
