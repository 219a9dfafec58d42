import { Inject, Injectable } from '@nestjs/common';
import { ObjectId } from 'mongodb';
import type { Logger } from 'pino';
import { createMessage } from '@mw/contracts';
import { LOGGER, outgoingTrace } from '@mw/platform';
import { CatalogErrors } from '../shared/errors';
import { ProductsReparenter } from '../products/products-reparenter';
import { CategoriesRepository } from './categories.repository';
import {
  ancestorsUnder,
  AncestorRef,
  breadcrumbs,
  buildTree,
  Category,
  CategoryTreeNode,
  checkMove,
  MAX_DEPTH,
  rebaseAncestors,
  subtreeHeight,
} from './category';
import { toAncestorDocs, toSnapshot } from './category.mapper';

export interface CategoryView extends Category {
  readonly breadcrumbs: readonly AncestorRef[];
  readonly children: readonly AncestorRef[];
}

@Injectable()
export class CategoriesService {
  constructor(
    private readonly repo: CategoriesRepository,
    private readonly reparenter: ProductsReparenter,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async create(input: { name: string; slug: string; parent_id: string | null }): Promise<Category> {
    const parent = input.parent_id ? await this.repo.findById(input.parent_id) : null;
    if (input.parent_id && !parent) throw CatalogErrors.parentNotFound(input.parent_id);
    const ancestors = ancestorsUnder(parent);
    if (ancestors.length + 1 > MAX_DEPTH) throw CatalogErrors.treeTooDeep(ancestors.length + 1);
    const category: Category = {
      id: new ObjectId().toHexString(),
      slug: input.slug,
      name: input.name,
      parent_id: parent?.id ?? null,
      ancestors,
      version: 1,
    };
    const event = createMessage(
      'catalog.categories.v1',
      'CategoryCreated',
      toSnapshot(category),
      outgoingTrace(),
    );
    await this.repo.insert(category, [event], new Date());
    return category;
  }

  async get(slug: string): Promise<CategoryView> {
    const c = await this.mustGet(slug);
    const children = (await this.repo.findAll())
      .filter((x) => x.parent_id === c.id)
      .map((x) => ({ id: x.id, slug: x.slug, name: x.name }));
    return { ...c, breadcrumbs: breadcrumbs(c), children };
  }

  async tree(): Promise<CategoryTreeNode[]> {
    return buildTree(await this.repo.findAll());
  }

  async rename(slug: string, name: string): Promise<Category> {
    const c = await this.mustGet(slug);
    if (c.name === name) return c;
    const next = { ...c, name, version: c.version + 1 };
    const event = createMessage(
      'catalog.categories.v1',
      'CategoryRenamed',
      { ...toSnapshot(next), previous_name: c.name },
      outgoingTrace(),
    );
    if (!(await this.repo.update(c, { name }, [event], new Date()))) return this.rename(slug, name);
    const n = await this.repo.renameInDescendants(c.id, name);
    this.logger.info({ category: c.id, descendants: n }, 'category renamed');
    return next;
  }

  /** Moves the subtree under `parentId` (null: to the root); descendants and their products follow. */
  async move(slug: string, parentId: string | null): Promise<Category> {
    const c = await this.mustGet(slug);
    const parent = parentId ? await this.repo.findById(parentId) : null;
    if (parentId && !parent) throw CatalogErrors.parentNotFound(parentId);
    const descendants = await this.repo.findDescendants(c.id);
    const check = checkMove(c, parent, subtreeHeight(c, descendants));
    if (!check.ok)
      throw check.reason === 'own-subtree'
        ? CatalogErrors.moveIntoOwnSubtree(slug)
        : CatalogErrors.treeTooDeep(check.depth ?? 0);
    const ancestors = ancestorsUnder(parent);
    const now = new Date();
    const moved: Category = { ...c, parent_id: parent?.id ?? null, ancestors, version: c.version + 1 };
    const event = createMessage(
      'catalog.categories.v1',
      'CategoryMoved',
      { ...toSnapshot(moved), previous_parent_id: c.parent_id },
      outgoingTrace(),
    );
    if (
      !(await this.repo.update(
        c,
        { parent: parent ? new ObjectId(parent.id) : null, ancestors: toAncestorDocs(ancestors) },
        [event],
        now,
      ))
    ) {
      return this.move(slug, parentId);
    }
    const changed: Category[] = [moved];
    for (const d of descendants) {
      const next: Category = { ...d, ancestors: rebaseAncestors(d, c, ancestors), version: d.version + 1 };
      const e = createMessage(
        'catalog.categories.v1',
        'CategoryMoved',
        { ...toSnapshot(next), previous_parent_id: d.parent_id },
        outgoingTrace(),
      );
      await this.repo.setAncestors(d, next.ancestors, [e], now);
      changed.push(next);
    }
    const products = await this.reparenter.reparent(changed);
    this.logger.info({ category: c.id, descendants: descendants.length, products }, 'category subtree moved');
    return moved;
  }

  /** Only an empty category (no children, no products) can be deleted. */
  async delete(slug: string): Promise<void> {
    const c = await this.mustGet(slug);
    if (await this.repo.hasChildren(c.id))
      throw CatalogErrors.categoryNotEmpty(slug, 'it has sub-categories');
    if ((await this.reparenter.countIn(c.id)) > 0)
      throw CatalogErrors.categoryNotEmpty(slug, 'it has products');
    const event = createMessage(
      'catalog.categories.v1',
      'CategoryDeleted',
      { category_id: c.id, version: c.version + 1, slug: c.slug },
      outgoingTrace(),
    );
    if (!(await this.repo.markDeleted(c, [event], new Date()))) return this.delete(slug);
  }

  async mustGet(slug: string): Promise<Category> {
    const c = await this.repo.findBySlug(slug);
    if (!c) throw CatalogErrors.categoryNotFound(`"${slug}"`);
    return c;
  }

  async mustGetById(id: string, field: string): Promise<Category> {
    const c = await this.repo.findById(id);
    if (!c) throw CatalogErrors.unknownCategory(field, id);
    return c;
  }
}
