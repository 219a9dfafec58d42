import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ObjectId } from 'mongodb';
import type { Logger } from 'pino';
import { createMessage } from '@mw/contracts';
import { AppError, LOGGER, outgoingTrace, Periodic } from '@mw/platform';
import type { CatalogConfig } from '../config';
import { CatalogErrors } from '../shared/errors';
import { CATALOG_CONFIG } from '../shared/tokens';
import { ProductsReparenter } from '../products/products-reparenter';
import { CategoriesRepository } from './categories.repository';
import { PendingMove } from './category-moves.repository';
import {
  ancestorsUnder,
  AncestorRef,
  breadcrumbs,
  buildTree,
  Category,
  CategoryTreeNode,
  checkMove,
  MAX_CONFLICT_ATTEMPTS,
  MAX_DEPTH,
  moveBackoffMs,
  rebaseAncestors,
  sameAncestors,
  subtreeHeight,
} from './category';
import { toAncestorDocs, toSnapshot } from './category.mapper';

export interface CategoryView extends Category {
  readonly breadcrumbs: readonly AncestorRef[];
  readonly children: readonly AncestorRef[];
}

export interface MoveOptions {
  /** How long a mover holds the move slot without renewing it (it renews after every step). */
  readonly leaseMs: number;
  /** How often interrupted moves are looked for (0: only on start). */
  readonly sweepMs: number;
}

@Injectable()
export class CategoriesService implements OnApplicationBootstrap, OnApplicationShutdown {
  /** Identifies this instance as the holder of a move. */
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly sweep: Periodic;
  readonly moveOptions: MoveOptions;
  /** Test seam: called after each step of a move (crash tests kill the process here). */
  onMoveStep?: (step: string) => Promise<void>;

  constructor(
    private readonly repo: CategoriesRepository,
    private readonly reparenter: ProductsReparenter,
    @Inject(LOGGER) private readonly logger: Logger,
    @Optional()
    @Inject(CATALOG_CONFIG)
    config?: Pick<CatalogConfig, 'CATALOG_MOVE_LEASE_MS' | 'CATALOG_MOVE_SWEEP_MS'>,
  ) {
    this.moveOptions = {
      leaseMs: config?.CATALOG_MOVE_LEASE_MS ?? 15_000,
      sweepMs: config?.CATALOG_MOVE_SWEEP_MS ?? 5_000,
    };
    this.sweep = new Periodic(
      'category-move-sweep',
      this.moveOptions.sweepMs,
      () => this.resumeStaleMoves(),
      logger,
    );
  }

  onApplicationBootstrap(): void {
    this.sweep.start();
    this.sweep.kick();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sweep.stop();
  }

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
    const { before, after } = await this.retryingConflicts(`category "${slug}"`, async () => {
      const c = await this.mustGet(slug);
      if (c.name === name) return { before: c, after: c };
      const next = { ...c, name, version: c.version + 1 };
      const event = createMessage(
        'catalog.categories.v1',
        'CategoryRenamed',
        { ...toSnapshot(next), previous_name: c.name },
        outgoingTrace(),
      );
      return (await this.repo.update(c, { name }, [event], new Date()))
        ? { before: c, after: next }
        : undefined;
    });
    if (before === after) return after;
    const n = await this.repo.renameInDescendants(before.id, name);
    this.logger.info({ category: before.id, descendants: n }, 'category renamed');
    return after;
  }

  /**
   * Moves the subtree under `parentId` (null: to the root); descendants and their products
   * follow. The move is journalled first (one pending move in the tree at a time), every step
   * is idempotent and version-guarded, and a move cut short by a crash is finished by the sweep.
   * A move that cannot take the slot after a few attempts answers 409 CATALOG.MOVE_IN_PROGRESS.
   */
  async move(slug: string, parentId: string | null): Promise<Category> {
    const c = await this.mustGet(slug);
    if (parentId && !(await this.repo.findById(parentId))) throw CatalogErrors.parentNotFound(parentId);
    for (let attempt = 0; attempt < MAX_CONFLICT_ATTEMPTS; attempt++) {
      const pending = await this.repo.moves.begin(c.id, parentId, this.owner, this.moveOptions.leaseMs);
      if (pending) return this.runMove(pending, slug);
      // A mover that died holds the slot until its lease runs out: finish its move first.
      await this.resumeStaleMoves();
      await sleep(moveBackoffMs(attempt));
    }
    this.logger.warn({ category: c.id, parent: parentId }, 'category move refused: another move in progress');
    throw CatalogErrors.moveInProgress(slug);
  }

  /**
   * Finishes moves whose mover died (lease expired). Runs on start and every sweep interval;
   * returns how many it finished.
   */
  async resumeStaleMoves(): Promise<number> {
    let n = 0;
    for (let m = await this.repo.moves.takeOverStale(this.owner, this.moveOptions.leaseMs); m;) {
      this.logger.warn(
        { move: m.id, category: m.category_id, parent: m.parent_id },
        'resuming an interrupted category move',
      );
      await this.runMove(m, m.category_id).catch((e: unknown) =>
        this.logger.error({ move: m?.id, err: (e as Error).message }, 'resumed category move failed'),
      );
      n++;
      m = await this.repo.moves.takeOverStale(this.owner, this.moveOptions.leaseMs);
    }
    return n;
  }

  /** Runs a journalled move from wherever it stopped. Every step can be repeated. */
  private async runMove(m: PendingMove, label: string): Promise<Category> {
    const step = async (name: string): Promise<void> => {
      if (!(await this.repo.moves.renew(m.id, this.owner, this.moveOptions.leaseMs)))
        throw new Error(`category move ${m.id} was taken over by another instance`);
      await this.onMoveStep?.(name);
    };
    let moved: Category;
    try {
      moved = await this.moveRoot(m, label);
    } catch (e) {
      if (e instanceof AppError) await this.repo.moves.finish(m.id, 'rejected', e.code);
      throw e;
    }
    await step('root');
    let descendants = await this.repo.findDescendants(moved.id);
    for (const d of descendants) {
      await this.rebaseDescendant(d, moved);
      await step(`descendant:${d.id}`);
    }
    descendants = await this.repo.findDescendants(moved.id);
    const products = await this.reparenter.reparent([moved, ...descendants]);
    await step('products');
    await this.repo.moves.finish(m.id, 'done', 'moved');
    this.logger.info(
      { move: m.id, category: moved.id, descendants: descendants.length, products },
      'category subtree moved',
    );
    return moved;
  }

  /** The moved category itself: validated against the tree as it is now (the slot is held). */
  private async moveRoot(m: PendingMove, label: string): Promise<Category> {
    return this.retryingConflicts(`category "${label}"`, async () => {
      const c = await this.repo.findById(m.category_id);
      if (!c) throw CatalogErrors.categoryNotFound(`"${label}"`);
      const parent = m.parent_id ? await this.repo.findById(m.parent_id) : null;
      if (m.parent_id && !parent) throw CatalogErrors.parentNotFound(m.parent_id);
      const ancestors = ancestorsUnder(parent);
      if (c.parent_id === (parent?.id ?? null) && sameAncestors(c.ancestors, ancestors)) return c; // already done
      const check = checkMove(c, parent, subtreeHeight(c, await this.repo.findDescendants(c.id)));
      if (!check.ok)
        throw check.reason === 'own-subtree'
          ? CatalogErrors.moveIntoOwnSubtree(c.slug)
          : CatalogErrors.treeTooDeep(check.depth ?? 0);
      const moved: Category = { ...c, parent_id: parent?.id ?? null, ancestors, version: c.version + 1 };
      const event = createMessage(
        'catalog.categories.v1',
        'CategoryMoved',
        { ...toSnapshot(moved), previous_parent_id: c.parent_id },
        outgoingTrace(),
      );
      const set = { parent: parent ? new ObjectId(parent.id) : null, ancestors: toAncestorDocs(ancestors) };
      return (await this.repo.update(c, set, [event], new Date())) ? moved : undefined;
    });
  }

  /** One descendant below the moved category, re-read on a version conflict. */
  private async rebaseDescendant(first: Category, moved: Category): Promise<void> {
    let d: Category | null = first;
    await this.retryingConflicts(`category ${first.id}`, async () => {
      if (!d) return true; // deleted meanwhile
      const ancestors = rebaseAncestors(d, moved, moved.ancestors);
      if (sameAncestors(d.ancestors, ancestors)) return true;
      const next: Category = { ...d, ancestors, version: d.version + 1 };
      const e = createMessage(
        'catalog.categories.v1',
        'CategoryMoved',
        { ...toSnapshot(next), previous_parent_id: d.parent_id },
        outgoingTrace(),
      );
      if (await this.repo.setAncestors(d, ancestors, [e], new Date())) return true;
      d = await this.repo.findById(first.id);
      return undefined;
    });
  }

  /** Only an empty category (no children, no products) can be deleted. */
  async delete(slug: string): Promise<void> {
    await this.retryingConflicts(`category "${slug}"`, async () => {
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
      return (await this.repo.markDeleted(c, [event], new Date())) || undefined;
    });
  }

  /** A version-guarded change retried a bounded number of times (undefined: lost the race), then 409. */
  private async retryingConflicts<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < MAX_CONFLICT_ATTEMPTS; i++) {
      const r = await attempt();
      if (r !== undefined) return r;
    }
    this.logger.warn({ what, attempts: MAX_CONFLICT_ATTEMPTS }, 'version conflict on every attempt');
    throw CatalogErrors.concurrentModification(what);
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
