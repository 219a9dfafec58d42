import { Injectable } from '@nestjs/common';
import { ObjectId } from 'mongodb';
import { createMessage, OutgoingMessage } from '@mw/contracts';
import { outgoingTrace } from '@mw/platform';
import { CategoriesRepository } from '../categories/categories.repository';
import { productAncestry } from '../categories/category';
import { CatalogErrors } from '../shared/errors';
import { applyChange, ChangeEvent, Product, ProductChange, pricingOf, toSnapshot } from './product';
import { ProductsRepository } from './products.repository';

export interface NewProduct {
  readonly name: string;
  readonly category_id: string;
  readonly price: number;
  readonly attributes: Readonly<Record<string, string>>;
  readonly pricing?: { readonly list: number; readonly retail: number } | undefined;
}

export interface ProductPatch {
  readonly name?: string | undefined;
  readonly category_id?: string | undefined;
  readonly price?: number | undefined;
  readonly attributes?: Readonly<Record<string, string>> | undefined;
  readonly pricing?: { readonly list: number; readonly retail: number } | null | undefined;
}

/** Product writes: each change and its event in one atomic document update (outbox). */
@Injectable()
export class ProductsService {
  constructor(
    private readonly repo: ProductsRepository,
    private readonly categories: CategoriesRepository,
  ) {}

  /** `id`/`now` (created_at) are given by the seed (deterministic, idempotent); the API lets them default. */
  async create(
    input: NewProduct,
    opts: { id?: string; now?: Date } = {},
  ): Promise<{ product: Product; created: boolean }> {
    const category = await this.categories.findById(input.category_id);
    if (!category) throw CatalogErrors.unknownCategory('body.category_id', input.category_id);
    const now = opts.now ?? new Date();
    const product: Product = {
      id: opts.id ?? new ObjectId().toHexString(),
      name: input.name,
      category_id: category.id,
      ancestors: productAncestry(category),
      price: input.price,
      currency: 'RUB',
      attributes: input.attributes,
      ...(input.pricing ? { pricing: pricingOf(input.pricing) } : {}),
      version: 1,
      created_at: now,
      updated_at: now,
    };
    const event = createMessage(
      'catalog.products.v1',
      'ProductCreated',
      toSnapshot(product),
      outgoingTrace(),
    );
    const created = await this.repo.insert(product, [event]);
    return { product: created ? product : ((await this.repo.findById(product.id)) ?? product), created };
  }

  /** Bulk create for the seed: categories resolved once, one bulk write; ids make it idempotent. */
  async createMany(inputs: readonly (NewProduct & { id: string; created_at: Date })[]): Promise<number> {
    const categories = new Map<string, string[]>();
    for (const id of new Set(inputs.map((i) => i.category_id))) {
      const c = await this.categories.findById(id);
      if (!c) throw CatalogErrors.unknownCategory('category_id', id);
      categories.set(id, productAncestry(c));
    }
    const trace = outgoingTrace();
    const items = inputs.map((input) => {
      const product: Product = {
        id: input.id,
        name: input.name,
        category_id: input.category_id,
        ancestors: categories.get(input.category_id) ?? [],
        price: input.price,
        currency: 'RUB',
        attributes: input.attributes,
        ...(input.pricing ? { pricing: pricingOf(input.pricing) } : {}),
        version: 1,
        created_at: input.created_at,
        updated_at: input.created_at,
      };
      return {
        product,
        events: [createMessage('catalog.products.v1', 'ProductCreated', toSnapshot(product), trace)],
      };
    });
    return this.repo.insertMany(items);
  }

  async get(id: string): Promise<Product> {
    const p = await this.repo.findById(id);
    if (!p) throw CatalogErrors.productNotFound(id);
    return p;
  }

  /** PATCH (only given fields) and PUT (every field) both land here. */
  async change(id: string, patch: ProductPatch): Promise<Product> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const p = await this.get(id);
      const change = await this.toChange(patch, p);
      const { next, event } = applyChange(p, change, new Date());
      if (!event) return p;
      if (await this.repo.replace(next, p.version, [this.eventOf(event, next, p)])) return next;
    }
    throw CatalogErrors.versionConflict(id, -1);
  }

  async delete(id: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const p = await this.repo.findById(id);
      if (!p) return; // already gone: DELETE is idempotent
      const now = new Date();
      const version = p.version + 1;
      const event = createMessage(
        'catalog.products.v1',
        'ProductDeleted',
        {
          product_id: p.id,
          version,
          category_id: p.category_id,
          ancestors: [...p.ancestors],
          created_at: p.created_at.toISOString(),
          deleted_at: now.toISOString(),
        },
        outgoingTrace(),
        now,
      );
      if (await this.repo.markDeleted(p, version, now, [event])) return;
    }
    throw CatalogErrors.versionConflict(id, -1);
  }

  private async toChange(patch: ProductPatch, p: Product): Promise<ProductChange> {
    let category: ProductChange['category'];
    if (patch.category_id !== undefined && patch.category_id !== p.category_id) {
      const c = await this.categories.findById(patch.category_id);
      if (!c) throw CatalogErrors.unknownCategory('body.category_id', patch.category_id);
      category = { id: c.id, ancestors: productAncestry(c) };
    }
    return {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(category ? { category } : {}),
      ...(patch.price !== undefined ? { price: patch.price } : {}),
      ...(patch.attributes !== undefined ? { attributes: patch.attributes } : {}),
      ...(patch.pricing !== undefined ? { pricing: patch.pricing } : {}),
    };
  }

  private eventOf(type: ChangeEvent, next: Product, prev: Product): OutgoingMessage<'catalog.products.v1'> {
    const snap = toSnapshot(next);
    const trace = outgoingTrace();
    switch (type) {
      case 'ProductCategoryChanged':
        return createMessage(
          'catalog.products.v1',
          type,
          { ...snap, previous_category_id: prev.category_id, previous_ancestors: [...prev.ancestors] },
          trace,
          next.updated_at,
        );
      case 'ProductPriceChanged':
        return createMessage(
          'catalog.products.v1',
          type,
          { ...snap, previous_price: prev.price },
          trace,
          next.updated_at,
        );
      case 'ProductUpdated':
        return createMessage('catalog.products.v1', type, snap, trace, next.updated_at);
    }
  }
}
