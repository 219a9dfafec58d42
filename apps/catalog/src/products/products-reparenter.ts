import { Injectable } from '@nestjs/common';
import { createMessage } from '@mw/contracts';
import { outgoingTrace } from '@mw/platform';
import { Category, productAncestry } from '../categories/category';
import { applyChange, toSnapshot as toSnapshotOf } from './product';
import { toProduct } from './product.mapper';
import { ProductsRepository } from './products.repository';

/**
 * Keeps products' denormalized ancestry right after a category subtree moved: every product
 * of a moved category gets its new ancestors and a ProductCategoryChanged event (one atomic
 * update per product), so the read side drops the rows of categories it left.
 */
@Injectable()
export class ProductsReparenter {
  constructor(private readonly repo: ProductsRepository) {}

  countIn(categoryId: string): Promise<number> {
    return this.repo.countInCategory(categoryId);
  }

  /** Returns how many products changed. Re-running it is harmless (no change, no event). */
  async reparent(categories: readonly Category[]): Promise<number> {
    const byId = new Map(categories.map((c) => [c.id, productAncestry(c)]));
    let changed = 0;
    for await (const doc of this.repo.inCategories([...byId.keys()])) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const p = attempt === 0 ? toProduct(doc) : await this.repo.findById(doc._id.toHexString());
        if (!p) break;
        const ancestors = byId.get(p.category_id);
        if (!ancestors) break; // moved to another category meanwhile
        const { next, event } = applyChange(p, { category: { id: p.category_id, ancestors } }, new Date());
        if (!event) break;
        const msg = createMessage(
          'catalog.products.v1',
          'ProductCategoryChanged',
          {
            ...toSnapshotOf(next),
            previous_category_id: p.category_id,
            previous_ancestors: [...p.ancestors],
          },
          outgoingTrace(),
        );
        if (await this.repo.replace(next, p.version, [msg])) {
          changed++;
          break;
        }
      }
    }
    return changed;
  }
}
