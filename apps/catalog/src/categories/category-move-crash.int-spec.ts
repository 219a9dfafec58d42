import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { createMongoClient } from '@mw/persistence';
import { testEnv, uniqueName, waitFor } from '@mw/testing';
import { ensureCatalogSchema } from '../shared/catalog-db';
import { catalogOn, inconsistencies } from '../test/move-kit';
import { MoveJournal } from './category-moves.repository';

/**
 * A category move in its own process, SIGKILLed between two steps (the moved category already
 * under its new parent, some descendants rebased, the rest and the products not). A restarted
 * instance finishes the move once the dead mover's lease ran out: the tree and the products are
 * consistent again and the slot is free for the next move.
 */
describe('category move killed half-way', () => {
  const env = testEnv();
  const name = uniqueName('catalog_move_crash').toLowerCase();
  const LEASE_MS = 1500;
  let mongo: MongoClient;

  beforeAll(async () => {
    mongo = await createMongoClient(env.mongoUrl).connect();
    await ensureCatalogSchema(mongo.db(name));
  });

  afterAll(async () => {
    await mongo.db(name).dropDatabase();
    await mongo.close();
  });

  it('is finished after a restart: every ancestry consistent, no move pending', async () => {
    const db = mongo.db(name);
    const { categories, products } = catalogOn(db, { leaseMs: LEASE_MS, sweepMs: 200 });
    await categories.create({ name: 'Электроника', slug: 'electronics', parent_id: null });
    const gadgets = await categories.create({ name: 'Гаджеты', slug: 'gadgets', parent_id: null });
    const phones = await categories.create({
      name: 'Телефоны',
      slug: 'phones',
      parent_id: (await categories.mustGet('electronics')).id,
    });
    const below: string[] = [];
    for (let i = 0; i < 8; i++) {
      const c = await categories.create({ name: `Серия ${i}`, slug: `series-${i}`, parent_id: phones.id });
      const leaf = await categories.create({ name: `Модели ${i}`, slug: `models-${i}`, parent_id: c.id });
      below.push(c.id, leaf.id);
    }
    for (const [i, id] of below.entries())
      await products.create({ name: `Телефон ${i}`, category_id: id, price: 10_000 + i, attributes: {} });

    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(__dirname, '../test/move-child.ts'),
        env.mongoUrl,
        name,
        'phones',
        gadgets.id,
        String(LEASE_MS),
        '150',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        cwd: join(__dirname, '../../../..'),
        detached: true,
        env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json' },
      },
    );
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise((r) => child.on('exit', r));
    await waitFor(
      async () => (out.match(/step descendant:/g) ?? []).length >= 5,
      60_000,
      'five descendants rebased',
    );
    process.kill(-child.pid!, 'SIGKILL');
    await exited;
    expect(out).not.toContain('move-done');
    // Half-way: the tree is inconsistent and the slot is held by the dead mover.
    expect((await inconsistencies(db)).length).toBeGreaterThan(0);
    const journal = new MoveJournal(db);
    expect(await journal.pendingCount()).toBe(1);

    // Restart: a new instance's start-up sweep finishes the move once the lease ran out.
    categories.onApplicationBootstrap();
    try {
      await waitFor(async () => (await journal.pendingCount()) === 0, 60_000, 'interrupted move finished');
    } finally {
      await categories.onApplicationShutdown();
    }
    expect(await inconsistencies(db)).toEqual([]);
    const moved = await categories.mustGet('models-3');
    expect(moved.ancestors.map((a) => a.slug)).toEqual(['gadgets', 'phones', 'series-3']);
    // The slot is free: the next move goes through.
    expect((await categories.move('phones', null)).parent_id).toBeNull();
    expect(await inconsistencies(db)).toEqual([]);
  });
});
