/**
 * MongoDB conformance suite.
 *
 * Exercises, through the official `mongodb` Node driver, every server feature the
 * services (catalog, inventory, orders) rely on — one `it` per feature, the feature
 * name in the title. It runs against whatever server `MONGO_URL` points at (the
 * project's local server from `tools/infra`, a real mongod, a CI service...).
 *
 * Rule: every feature must work on the project's server (mongod, ADR 0003); a feature
 * that does not is a failing test named after it, never a skip.
 *
 * Environment:
 *   MONGO_URL                       connection string (required)
 *   MONGO_CONFORMANCE_TTL_WAIT_MS   upper bound for the TTL test (default 90000)
 *   MONGO_CONFORMANCE_KEEP_DB=1     keep the per-run database for inspection
 */
// runtimeAdapters: the driver's dynamic import('os') fails under Jest (see libs/persistence/src/mongo-client.ts).
import { randomBytes } from 'node:crypto';
import * as os from 'node:os';
import {
  Collection,
  Db,
  Document,
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  ObjectId,
  ReadPreference,
  UpdateFilter,
} from 'mongodb';

/** Feature names: the test titles. */
export const FEATURES = {
  hello: 'hello/buildInfo version reporting',
  conditionalFindOneAndUpdate: 'conditional findOneAndUpdate with $inc/$push/$pull (reservation pattern)',
  positional: 'positional $ update',
  arrayFilters: 'arrayFilters update ($[identifier])',
  updateManyArrayFilters: 'updateMany with arrayFilters',
  upsert: 'upsert (updateOne and findOneAndUpdate)',
  setOnInsert: '$setOnInsert',
  addToSet: '$addToSet with $each',
  pullCondition: '$pull with condition',
  uniqueIndex: 'unique index',
  duplicateKey: 'duplicate key error code 11000',
  compoundIndex: 'compound index (used for equality + sort field, explain IXSCAN)',
  indexSort: 'sort served by an index, incl. compound suffix after equality prefix (no SORT stage)',
  multikeyIndex: 'multikey index (array field query uses it, explain IXSCAN)',
  explainIndex: 'explain() of a find shows index use (IXSCAN)',
  ttlIndex: 'TTL index deletes expired documents',
  jsonSchema: '$jsonSchema validator rejects bad insert (code 121)',
  aggMatchGroupSort: 'aggregation $match/$group/$sort',
  aggUnwind: 'aggregation $unwind',
  aggLookup: 'aggregation $lookup',
  aggArrayFieldPath: "aggregation expression field path through an array ('$items.sku')",
  aggFacet: 'aggregation $facet',
  bulkOrdered: 'bulkWrite ordered (stops at first error)',
  bulkUnordered: 'bulkWrite unordered (continues past errors)',
  txCommit: 'multi-document transaction commit (session, isolation)',
  txAbort: 'multi-document transaction abort',
  withTransaction: 'session.withTransaction callback API',
  changeStreams: 'change streams (insert/update events)',
  expr: '$expr query',
  elemMatch: '$elemMatch query',
  sortLimitTieBreak: 'cursor sort + limit with _id tie-break (pagination)',
  countDocuments: 'countDocuments with filter',
  estimatedDocumentCount: 'estimatedDocumentCount',
  readPreference: 'secondaryPreferred read (maxStalenessSeconds) is served by a SECONDARY member',
  writeConcernMajority: 'w: majority write is read back from a secondary in a causally consistent session (readConcern majority)',
  hint: 'find/countDocuments with hint(index name) uses that index',
  collModValidator: 'collMod replaces a $jsonSchema validator',
  updateManyPositional: 'updateMany with positional $ (one matched element per document)',
  nullMatchesMissing: '{field: null} matches documents without the field',
  updateManyPullCondition: 'updateMany with $pull by condition (ledger flush)',
} as const;
export type FeatureKey = keyof typeof FEATURES;

const MONGO_URL = process.env.MONGO_URL;
const TTL_WAIT_MS = Number(process.env.MONGO_CONFORMANCE_TTL_WAIT_MS ?? 90_000);
// the uniqueName token format (libs/testing test-resources.ts): the `npm test` sweep recognises a leftover
const DB_NAME = `conformance_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

let client: MongoClient;
let db: Db;
const outcome: Record<string, string> = {};

async function withTimeout<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Loosely typed documents: the suite uses string/number `_id`s and free-form shapes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDoc = { _id?: string | number | ObjectId; [key: string]: any };

/** The driver's typed update operators reject free-form array fields; the suite's updates are untyped on purpose. */
const upd = (u: Document): UpdateFilter<AnyDoc> => u as UpdateFilter<AnyDoc>;

function coll(name: string, options?: Parameters<Db['collection']>[1]): Collection<AnyDoc> {
  return db.collection<AnyDoc>(name, options);
}

/** Collects every plan stage of an explain document (works for classic and SBE layouts). */
function planStages(explain: unknown): Array<{ stage: string; indexName?: string; isMultiKey?: boolean }> {
  const out: Array<{ stage: string; indexName?: string; isMultiKey?: boolean }> = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o.stage === 'string') {
      out.push({
        stage: o.stage,
        indexName: typeof o.indexName === 'string' ? o.indexName : undefined,
        isMultiKey: typeof o.isMultiKey === 'boolean' ? o.isMultiKey : undefined,
      });
    }
    Object.values(o).forEach(walk);
  };
  const e = explain as Record<string, unknown>;
  const planner = (e.queryPlanner ?? e) as Record<string, unknown>;
  walk(planner.winningPlan ?? planner);
  return out;
}

function expectIxscan(explain: Document, indexName: string) {
  const stages = planStages(explain);
  const ix = stages.find((s) => s.stage === 'IXSCAN' && s.indexName === indexName);
  if (!ix) {
    throw new Error(
      `expected an IXSCAN on index "${indexName}" in the winning plan, got stages ${JSON.stringify(stages)}`,
    );
  }
  expect(stages.some((s) => s.stage === 'COLLSCAN')).toBe(false);
  return ix;
}

async function expectServerError(p: Promise<unknown>, code: number): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    if (!(e instanceof MongoServerError)) throw e;
    expect(e.code).toBe(code);
    return e;
  }
  throw new Error(`expected a server error with code ${code}, but the operation succeeded`);
}

/** Declares one feature test; its outcome goes into the summary printed at the end. */
function feature(key: FeatureKey, body: () => Promise<void>, timeoutMs = 30_000): void {
  const title = FEATURES[key];
  it(
    title,
    async () => {
      try {
        await body();
        outcome[title] = 'pass';
      } catch (e) {
        outcome[title] = `FAIL: ${(e as Error).message.split('\n')[0]}`;
        throw e;
      }
    },
    timeoutMs,
  );
}

/**
 * Starts the TTL scenario early (see the ttlIndex test). Resolves with the insert time;
 * a failure is reported by the ttlIndex test, not by the whole suite.
 */
async function startTtlScenario(): Promise<number> {
  const c = coll('ttl_idx');
  await c.createIndex({ expireAt: 1 }, { expireAfterSeconds: 0, name: 'expire_at' });
  // mongod's TTL monitor runs every 60 s by default; speed it up where the server allows
  // (restored in afterAll).
  const admin = client.db('admin');
  const current = await admin.command({ getParameter: 1, ttlMonitorSleepSecs: 1 }).catch(() => undefined);
  if (typeof current?.ttlMonitorSleepSecs === 'number' && current.ttlMonitorSleepSecs > 1) {
    const changed = await admin.command({ setParameter: 1, ttlMonitorSleepSecs: 1 }).then(
      () => true,
      () => false,
    );
    if (changed) restoreTtlMonitorSleepSecs = current.ttlMonitorSleepSecs;
  }
  await c.insertMany([
    { _id: 'expired', expireAt: new Date(Date.now() - 60_000) },
    { _id: 'alive', expireAt: new Date(Date.now() + 3_600_000) },
    { _id: 'no-date', expireAt: 'not a date' },
  ]);
  return Date.now();
}

let ttlSetup: Promise<number>;
let restoreTtlMonitorSleepSecs: number | undefined;

beforeAll(async () => {
  if (!MONGO_URL) {
    throw new Error(
      'MONGO_URL is not set: start the local server (`infra start mongodb`) or export MONGO_URL',
    );
  }
  client = new MongoClient(MONGO_URL, { serverSelectionTimeoutMS: 10_000, runtimeAdapters: { os } });
  await client.connect();
  db = client.db(DB_NAME);
  const admin = client.db('admin');
  const buildInfo = await admin.command({ buildInfo: 1 });
  const handshake = await admin.command({ hello: 1 });
  console.log(`MongoDB server: ${buildInfo.version} wire ${handshake.maxWireVersion}, replica set ${handshake.setName} (${handshake.hosts?.length} members)`);
  ttlSetup = startTtlScenario();
  ttlSetup.catch(() => undefined); // surfaced by the ttlIndex test
}, 30_000);

afterAll(async () => {
  if (client) {
    if (restoreTtlMonitorSleepSecs !== undefined) {
      await client
        .db('admin')
        .command({ setParameter: 1, ttlMonitorSleepSecs: restoreTtlMonitorSleepSecs })
        .catch(() => undefined);
    }
    if (process.env.MONGO_CONFORMANCE_KEEP_DB !== '1') await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
  const lines = Object.entries(outcome).map(([f, r]) => `  ${r === 'pass' ? 'ok  ' : 'FAIL'} ${f}: ${r}`);
  console.log(`MongoDB conformance summary:\n${lines.join('\n')}`);
});

describe('MongoDB conformance', () => {
  feature('hello', async () => {
    const admin = client.db('admin');
    const hello = await admin.command({ hello: 1 });
    const buildInfo = await admin.command({ buildInfo: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(String(buildInfo.version)).toMatch(/^\d+\.\d+\.\d+/);
    expect(Array.isArray(buildInfo.versionArray)).toBe(true);
    console.log(
      `hello: maxWireVersion=${hello.maxWireVersion} setName=${hello.setName ?? '(none)'} version=${buildInfo.version}`,
    );
  });

  feature('conditionalFindOneAndUpdate', async () => {
    const stock = coll('stock_reserve');
    await stock.insertOne({ _id: 'sku-1', available: 5, reserved: 0, reservations: [] });
    const reserve = (orderId: string, qty: number) =>
      stock.findOneAndUpdate(
        { _id: 'sku-1', available: { $gte: qty }, 'reservations.order_id': { $ne: orderId } },
        upd({
          $inc: { available: -qty, reserved: qty },
          $push: { reservations: { order_id: orderId, qty } },
        }),
        { returnDocument: 'after' },
      );
    const r1 = await reserve('o-1', 2);
    expect(r1).not.toBeNull();
    expect(r1!.available).toBe(3);
    expect(r1!.reserved).toBe(2);
    expect(r1!.reservations).toEqual([{ order_id: 'o-1', qty: 2 }]);
    // Idempotent: the same order cannot reserve twice.
    expect(await reserve('o-1', 2)).toBeNull();
    // Not enough stock: no match, nothing changes.
    expect(await reserve('o-2', 4)).toBeNull();
    // Release with $pull, returning the document before the update.
    const before = await stock.findOneAndUpdate(
      { _id: 'sku-1', 'reservations.order_id': 'o-1' },
      upd({ $inc: { available: 2, reserved: -2 }, $pull: { reservations: { order_id: 'o-1' } } }),
      { returnDocument: 'before' },
    );
    expect(before!.available).toBe(3);
    const after = await stock.findOne({ _id: 'sku-1' });
    expect(after).toMatchObject({ available: 5, reserved: 0, reservations: [] });
    // Atomicity: 20 concurrent single-unit reservations against 5 units → exactly 5 win.
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => reserve(`c-${i}`, 1)));
    expect(results.filter((r) => r !== null)).toHaveLength(5);
    const final = await stock.findOne({ _id: 'sku-1' });
    expect(final).toMatchObject({ available: 0, reserved: 5 });
    expect(final!.reservations).toHaveLength(5);
  });

  feature('positional', async () => {
    const orders = coll('orders_positional');
    const { insertedId } = await orders.insertOne({
      items: [
        { sku: 'a', qty: 1, status: 'new' },
        { sku: 'b', qty: 1, status: 'new' },
      ],
    });
    const res = await orders.updateOne(
      { _id: insertedId, 'items.sku': 'b' },
      { $inc: { 'items.$.qty': 2 }, $set: { 'items.$.status': 'picked' } },
    );
    expect(res.matchedCount).toBe(1);
    expect(res.modifiedCount).toBe(1);
    const doc = await orders.findOne({ _id: insertedId });
    expect(doc!.items).toEqual([
      { sku: 'a', qty: 1, status: 'new' },
      { sku: 'b', qty: 3, status: 'picked' },
    ]);
  });

  feature('arrayFilters', async () => {
    const orders = coll('orders_arrayfilters');
    const { insertedId } = await orders.insertOne({
      items: [
        { sku: 'a', qty: 1, status: 'new' },
        { sku: 'b', qty: 5, status: 'new' },
        { sku: 'c', qty: 7, status: 'new' },
      ],
    });
    const doc = await orders.findOneAndUpdate(
      { _id: insertedId },
      { $set: { 'items.$[big].status': 'bulk' } },
      { arrayFilters: [{ 'big.qty': { $gte: 5 } }], returnDocument: 'after' },
    );
    expect(doc!.items.map((i: Document) => i.status)).toEqual(['new', 'bulk', 'bulk']);
    await orders.updateOne(
      { _id: insertedId },
      { $inc: { 'items.$[x].qty': 10 } },
      { arrayFilters: [{ 'x.sku': 'a' }] },
    );
    const again = await orders.findOne({ _id: insertedId });
    expect(again!.items[0].qty).toBe(11);
  });

  feature('updateManyArrayFilters', async () => {
    const orders = coll('orders_updatemany_af');
    await orders.insertMany([
      {
        n: 1,
        items: [
          { sku: 'a', status: 'new' },
          { sku: 'b', status: 'new' },
        ],
      },
      { n: 2, items: [{ sku: 'a', status: 'new' }] },
      { n: 3, items: [{ sku: 'c', status: 'new' }] },
    ]);
    const res = await orders.updateMany(
      { 'items.sku': 'a' },
      { $set: { 'items.$[it].status': 'cancelled' } },
      { arrayFilters: [{ 'it.sku': 'a' }] },
    );
    expect(res.matchedCount).toBe(2);
    expect(res.modifiedCount).toBe(2);
    const docs = await orders.find({}, { sort: { n: 1 } }).toArray();
    expect(docs.map((d) => d.items.map((i: Document) => `${i.sku}:${i.status}`))).toEqual([
      ['a:cancelled', 'b:new'],
      ['a:cancelled'],
      ['c:new'],
    ]);
  });

  feature('upsert', async () => {
    const c = coll('upserts');
    const r1 = await c.updateOne({ key: 'k1' }, { $inc: { n: 1 } }, { upsert: true });
    expect(r1.upsertedCount).toBe(1);
    expect(r1.upsertedId).toBeInstanceOf(ObjectId);
    const r2 = await c.updateOne({ key: 'k1' }, { $inc: { n: 1 } }, { upsert: true });
    expect(r2.upsertedCount).toBe(0);
    expect(r2.matchedCount).toBe(1);
    const doc = await c.findOneAndUpdate(
      { key: 'k2' },
      { $set: { v: 'x' } },
      { upsert: true, returnDocument: 'after' },
    );
    expect(doc).toMatchObject({ key: 'k2', v: 'x' });
    expect(await c.findOne({ key: 'k1' })).toMatchObject({ key: 'k1', n: 2 });
    expect(await c.countDocuments({})).toBe(2);
  });

  feature('setOnInsert', async () => {
    const c = coll('set_on_insert');
    const t1 = new Date('2024-01-01T00:00:00Z');
    const t2 = new Date('2025-01-01T00:00:00Z');
    await c.updateOne(
      { sku: 's' },
      { $setOnInsert: { createdAt: t1 }, $set: { updatedAt: t1 } },
      { upsert: true },
    );
    await c.updateOne(
      { sku: 's' },
      { $setOnInsert: { createdAt: t2 }, $set: { updatedAt: t2 } },
      { upsert: true },
    );
    const doc = await c.findOne({ sku: 's' });
    expect(doc!.createdAt).toEqual(t1);
    expect(doc!.updatedAt).toEqual(t2);
  });

  feature('addToSet', async () => {
    const c = coll('add_to_set');
    const { insertedId } = await c.insertOne({ tags: ['a'] });
    await c.updateOne({ _id: insertedId }, { $addToSet: { tags: { $each: ['a', 'b', 'c', 'b'] } } });
    await c.updateOne({ _id: insertedId }, { $addToSet: { tags: 'c' } });
    const doc = await c.findOne({ _id: insertedId });
    expect(doc!.tags).toEqual(['a', 'b', 'c']);
  });

  feature('pullCondition', async () => {
    const c = coll('pull_condition');
    const now = Date.now();
    const { insertedId } = await c.insertOne({
      reservations: [
        { order_id: 'o1', qty: 1, expiresAt: new Date(now - 60_000) },
        { order_id: 'o2', qty: 3, expiresAt: new Date(now + 60_000) },
        { order_id: 'o3', qty: 2, expiresAt: new Date(now - 1_000) },
      ],
    });
    const res = await c.updateOne(
      { _id: insertedId },
      upd({ $pull: { reservations: { expiresAt: { $lt: new Date(now) } } } }),
    );
    expect(res.modifiedCount).toBe(1);
    const doc = await c.findOne({ _id: insertedId });
    expect(doc!.reservations.map((r: Document) => r.order_id)).toEqual(['o2']);
    const { insertedId: id2 } = await c.insertOne({ qtys: [1, 5, 2, 8] });
    await c.updateOne({ _id: id2 }, upd({ $pull: { qtys: { $gte: 5 } } }));
    expect((await c.findOne({ _id: id2 }))!.qtys).toEqual([1, 2]);
  });

  feature('uniqueIndex', async () => {
    const c = coll('unique_idx');
    const name = await c.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    expect(name).toBe('email_unique');
    // createIndex with the same spec is idempotent (services call it at startup).
    await c.createIndex({ email: 1 }, { unique: true, name: 'email_unique' });
    const indexes = await c.listIndexes().toArray();
    expect(indexes.find((i) => i.name === 'email_unique')).toMatchObject({ key: { email: 1 }, unique: true });
    await c.insertOne({ email: 'a@x' });
    await expectServerError(c.insertOne({ email: 'a@x' }), 11000);
    await expectServerError(
      c.updateOne({ email: 'b@x' }, { $set: { email: 'a@x' } }, { upsert: true }),
      11000,
    );
    expect(await c.countDocuments({})).toBe(1);
  });

  feature('duplicateKey', async () => {
    const c = coll('dup_key');
    const id = new ObjectId();
    await c.insertOne({ _id: id, v: 1 });
    const err = await expectServerError(c.insertOne({ _id: id, v: 2 }), 11000);
    expect(err.message).toMatch(/E11000|duplicate key/);
    expect((await c.findOne({ _id: id }))!.v).toBe(1);
  });

  feature('compoundIndex', async () => {
    const c = coll('compound_idx');
    await c.createIndex({ category: 1, price: -1 }, { name: 'category_price' });
    await c.insertMany(
      Array.from({ length: 200 }, (_, i) => ({ category: `c${i % 10}`, price: i, name: `p${i}` })),
    );
    const docs = await c
      .find({ category: 'c3', price: { $lt: 150 } })
      .sort({ price: -1 })
      .limit(3)
      .toArray();
    expect(docs.map((d) => d.price)).toEqual([143, 133, 123]);
    const explain = await c
      .find({ category: 'c3', price: { $lt: 150 } })
      .sort({ price: -1 })
      .limit(3)
      .explain('queryPlanner');
    expectIxscan(explain, 'category_price');
  });

  feature('indexSort', async () => {
    const c = coll('index_sort');
    await c.createIndex({ category: 1, createdAt: -1 }, { name: 'category_created' });
    await c.createIndex({ createdAt: -1 }, { name: 'created' });
    const t0 = Date.UTC(2025, 0, 1);
    await c.insertMany(
      Array.from({ length: 200 }, (_, i) => ({ category: `c${i % 4}`, createdAt: new Date(t0 + i * 1000) })),
    );
    const stagesOf = async (filter: Document, sort: Document) => {
      const explain = await c.find(filter).sort(sort).limit(5).explain('queryPlanner');
      return planStages(explain).map((s) => s.stage);
    };
    // Equality prefix + sort on the next key, and a plain sort on an indexed field:
    // mongod walks the index in order (no blocking SORT stage).
    const a = await stagesOf({ category: 'c1' }, { createdAt: -1 });
    const b = await stagesOf({}, { createdAt: -1 });
    const latest = await c.find({ category: 'c1' }).sort({ createdAt: -1 }).limit(2).toArray();
    expect(latest.map((d) => (d.createdAt as Date).getTime())).toEqual([t0 + 197_000, t0 + 193_000]);
    expect(a).toContain('IXSCAN');
    expect(b).toContain('IXSCAN');
    if (a.includes('SORT') || b.includes('SORT')) {
      throw new Error(
        `in-memory SORT stage although an index provides the order: ${a.join('>')} / ${b.join('>')}`,
      );
    }
  });

  feature('multikeyIndex', async () => {
    const c = coll('multikey_idx');
    await c.createIndex({ tags: 1 }, { name: 'tags_1' });
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ i, tags: [`t${i % 7}`, `u${i % 3}`] })));
    expect(await c.countDocuments({ tags: 't2' })).toBe(14);
    expect(await c.countDocuments({ tags: { $all: ['t2', 'u0'] } })).toBe(5);
    const explain = await c.find({ tags: 't2' }).explain('queryPlanner');
    const ix = expectIxscan(explain, 'tags_1');
    if (ix.isMultiKey !== undefined) expect(ix.isMultiKey).toBe(true);
  });

  feature('explainIndex', async () => {
    const c = coll('explain_idx');
    await c.createIndex({ sku: 1 }, { name: 'sku_1' });
    await c.insertMany(Array.from({ length: 100 }, (_, i) => ({ sku: `s${i}` })));
    const explain = await c.find({ sku: 's42' }).explain();
    expect(explain.queryPlanner).toBeDefined();
    expectIxscan(explain, 'sku_1');
    // A query on an unindexed field must not claim an index.
    const scan = await c.find({ other: 1 }).explain();
    expect(planStages(scan).some((s) => s.stage === 'COLLSCAN')).toBe(true);
  });

  feature('jsonSchema', async () => {
    await db.createCollection('validated', {
      validator: {
        $jsonSchema: {
          bsonType: 'object',
          required: ['sku', 'qty'],
          properties: {
            sku: { bsonType: 'string' },
            qty: { bsonType: 'int', minimum: 0 },
          },
        },
      },
      validationAction: 'error',
      validationLevel: 'strict',
    });
    const c = coll('validated');
    await c.insertOne({ sku: 'ok', qty: 1 });
    await expectServerError(c.insertOne({ sku: 'bad', qty: -1 }), 121);
    await expectServerError(c.insertOne({ qty: 1 }), 121);
    await expectServerError(c.updateOne({ sku: 'ok' }, { $set: { qty: 'many' } }), 121);
    expect(await c.countDocuments({})).toBe(1);
  });

  const seedSales = async (name: string) => {
    const c = coll(name);
    await c.insertMany([
      {
        order: 1,
        customer: 'ann',
        status: 'paid',
        items: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 1 },
        ],
        total: 30,
      },
      { order: 2, customer: 'bob', status: 'paid', items: [{ sku: 'a', qty: 1 }], total: 10 },
      { order: 3, customer: 'ann', status: 'cancelled', items: [{ sku: 'c', qty: 5 }], total: 50 },
      { order: 4, customer: 'cid', status: 'paid', items: [{ sku: 'b', qty: 4 }], total: 40 },
    ]);
    return c;
  };

  feature('aggMatchGroupSort', async () => {
    const c = await seedSales('agg_group');
    const rows = await c
      .aggregate([
        { $match: { status: 'paid' } },
        { $group: { _id: '$customer', total: { $sum: '$total' }, orders: { $sum: 1 } } },
        { $sort: { total: -1, _id: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { _id: 'cid', total: 40, orders: 1 },
      { _id: 'ann', total: 30, orders: 1 },
      { _id: 'bob', total: 10, orders: 1 },
    ]);
  });

  feature('aggUnwind', async () => {
    const c = await seedSales('agg_unwind');
    const rows = await c
      .aggregate([
        { $match: { status: 'paid' } },
        { $unwind: '$items' },
        { $group: { _id: '$items.sku', qty: { $sum: '$items.qty' } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { _id: 'a', qty: 3 },
      { _id: 'b', qty: 5 },
    ]);
  });

  feature('aggLookup', async () => {
    const orders = await seedSales('agg_lookup_orders');
    await coll('agg_lookup_customers').insertMany([
      { _id: 'ann', tier: 'gold' },
      { _id: 'bob', tier: 'silver' },
    ]);
    const rows = await orders
      .aggregate([
        { $match: { status: 'paid' } },
        {
          $lookup: { from: 'agg_lookup_customers', localField: 'customer', foreignField: '_id', as: 'cust' },
        },
        { $unwind: { path: '$cust', preserveNullAndEmptyArrays: true } },
        { $project: { _id: 0, order: 1, tier: { $ifNull: ['$cust.tier', 'none'] } } },
        { $sort: { order: 1 } },
      ])
      .toArray();
    expect(rows).toEqual([
      { order: 1, tier: 'gold' },
      { order: 2, tier: 'silver' },
      { order: 4, tier: 'none' },
    ]);
    // Pipeline form of $lookup (let + $expr).
    const withPipeline = await orders
      .aggregate([
        { $match: { order: 1 } },
        {
          $lookup: {
            from: 'agg_lookup_customers',
            let: { c: '$customer' },
            pipeline: [{ $match: { $expr: { $eq: ['$_id', '$$c'] } } }, { $project: { _id: 0, tier: 1 } }],
            as: 'cust',
          },
        },
      ])
      .toArray();
    expect(withPipeline).toHaveLength(1);
    expect(withPipeline[0]?.cust).toEqual([{ tier: 'gold' }]);
  });

  feature('aggArrayFieldPath', async () => {
    const c = await seedSales('agg_array_path');
    const rows = await c
      .aggregate([
        { $match: { order: 1 } },
        {
          $project: {
            _id: 0,
            skus: '$items.sku',
            units: { $sum: '$items.qty' },
            hasB: { $in: ['b', '$items.sku'] },
            viaMap: { $map: { input: '$items', as: 'i', in: '$$i.sku' } },
          },
        },
      ])
      .toArray();
    expect(rows).toEqual([{ skus: ['a', 'b'], units: 3, hasB: true, viaMap: ['a', 'b'] }]);
  });

  feature('aggFacet', async () => {
    const c = await seedSales('agg_facet');
    const [facet] = await c
      .aggregate([
        {
          $facet: {
            byStatus: [{ $group: { _id: '$status', n: { $sum: 1 } } }, { $sort: { _id: 1 } }],
            page: [{ $sort: { order: 1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { _id: 0, order: 1 } }],
            total: [{ $count: 'n' }],
          },
        },
      ])
      .toArray();
    const row = facet ?? {};
    expect(row.byStatus).toEqual([
      { _id: 'cancelled', n: 1 },
      { _id: 'paid', n: 3 },
    ]);
    expect(row.page).toEqual([{ order: 2 }, { order: 3 }]);
    expect(row.total).toEqual([{ n: 4 }]);
  });

  feature('bulkOrdered', async () => {
    const c = coll('bulk_ordered');
    const ok = await c.bulkWrite(
      [
        { insertOne: { document: { _id: 1, n: 0 } } },
        { updateOne: { filter: { _id: 1 }, update: { $inc: { n: 1 } } } },
        { updateOne: { filter: { _id: 2 }, update: { $set: { n: 5 } }, upsert: true } },
        { deleteOne: { filter: { _id: 3 } } },
        { replaceOne: { filter: { _id: 1 }, replacement: { n: 10 } } },
      ],
      { ordered: true },
    );
    expect(ok.insertedCount).toBe(1);
    expect(ok.matchedCount).toBe(2);
    expect(ok.upsertedCount).toBe(1);
    expect(ok.deletedCount).toBe(0);
    let err: unknown;
    try {
      await c.bulkWrite(
        [
          { insertOne: { document: { _id: 10 } } },
          { insertOne: { document: { _id: 1 } } },
          { insertOne: { document: { _id: 11 } } },
        ],
        { ordered: true },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const bulkErr = err as MongoBulkWriteError;
    expect(bulkErr.code).toBe(11000);
    expect(bulkErr.result.insertedCount).toBe(1);
    const ids = (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
    expect(ids).toEqual([1, 2, 10]);
  });

  feature('bulkUnordered', async () => {
    const c = coll('bulk_unordered');
    await c.insertOne({ _id: 1 });
    let err: unknown;
    try {
      await c.bulkWrite(
        [
          { insertOne: { document: { _id: 10 } } },
          { insertOne: { document: { _id: 1 } } },
          { insertOne: { document: { _id: 11 } } },
          { updateOne: { filter: { _id: 10 }, update: { $set: { x: 1 } } } },
        ],
        { ordered: false },
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(MongoBulkWriteError);
    const bulkErr = err as MongoBulkWriteError;
    const writeErrors = Array.isArray(bulkErr.writeErrors) ? bulkErr.writeErrors : [bulkErr.writeErrors];
    expect(writeErrors).toHaveLength(1);
    expect(writeErrors[0].code).toBe(11000);
    expect(writeErrors[0].index).toBe(1);
    expect(bulkErr.result.insertedCount).toBe(2);
    const ids = (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
    expect(ids).toEqual([1, 10, 11]);
    expect((await c.findOne({ _id: 10 }))!.x).toBe(1);
  });

  feature('txCommit', async () => {
    const orders = coll('tx_orders');
    const stock = coll('tx_stock');
    // Collections must exist before a transaction on older servers.
    await stock.insertOne({ _id: 'sku', available: 3 });
    await orders.insertOne({ _id: 'seed' });
    const session = client.startSession();
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
      await orders.insertOne({ _id: 'o1', qty: 1 }, { session });
      await stock.updateOne({ _id: 'sku' }, { $inc: { available: -1 } }, { session });
      // Read-your-writes inside the transaction…
      expect(await orders.findOne({ _id: 'o1' }, { session })).not.toBeNull();
      // …isolation outside it.
      expect(await orders.findOne({ _id: 'o1' })).toBeNull();
      expect((await stock.findOne({ _id: 'sku' }))!.available).toBe(3);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await orders.findOne({ _id: 'o1' })).not.toBeNull();
    expect((await stock.findOne({ _id: 'sku' }))!.available).toBe(2);
  });

  feature('txAbort', async () => {
    const orders = coll('tx_abort_orders');
    await orders.insertOne({ _id: 'seed' });
    const session = client.startSession();
    try {
      session.startTransaction();
      await orders.insertOne({ _id: 'o1' }, { session });
      await orders.deleteOne({ _id: 'seed' }, { session });
      expect(await orders.countDocuments({}, { session })).toBe(1);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    const ids = (await orders.find({}).toArray()).map((d) => d._id);
    expect(ids).toEqual(['seed']);
  });

  feature('withTransaction', async () => {
    const orders = coll('tx_with_orders');
    const stock = coll('tx_with_stock');
    await stock.insertOne({ _id: 'sku', available: 1 });
    await orders.insertOne({ _id: 'seed' });
    const placeOrder = async (id: string) => {
      const session = client.startSession();
      try {
        return await session.withTransaction(async () => {
          const res = await stock.updateOne(
            { _id: 'sku', available: { $gte: 1 } },
            { $inc: { available: -1 } },
            { session },
          );
          if (res.modifiedCount !== 1) throw new Error('out of stock');
          await orders.insertOne({ _id: id }, { session });
          return id;
        });
      } finally {
        await session.endSession();
      }
    };
    expect(await placeOrder('o1')).toBe('o1');
    // The callback throws → the transaction is aborted and the error propagates.
    await expect(placeOrder('o2')).rejects.toThrow('out of stock');
    const ids = (await orders.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
    expect(ids).toEqual(['o1', 'seed']);
    expect((await stock.findOne({ _id: 'sku' }))!.available).toBe(0);
  });

  feature('changeStreams', async () => {
    const c = coll('change_stream');
    await c.insertOne({ _id: 'seed' });
    const stream = c.watch([{ $match: { operationType: { $in: ['insert', 'update'] } } }], {
      fullDocument: 'updateLookup',
      maxAwaitTimeMS: 500,
    });
    try {
      // Establish the cursor before writing.
      await withTimeout('change stream open', 10_000, stream.tryNext());
      await c.insertOne({ _id: 'a', v: 1 });
      await c.updateOne({ _id: 'a' }, { $set: { v: 2 } });
      const first = await withTimeout('change stream insert event', 10_000, stream.next());
      expect(first.operationType).toBe('insert');
      const second = await withTimeout('change stream update event', 10_000, stream.next());
      expect(second.operationType).toBe('update');
      if (second.operationType === 'update') {
        expect(second.updateDescription.updatedFields).toEqual({ v: 2 });
        expect(second.fullDocument).toMatchObject({ v: 2 });
      }
      expect(stream.resumeToken).toBeDefined();
    } finally {
      await stream.close();
    }
  });

  feature('expr', async () => {
    const c = coll('expr');
    await c.insertMany([
      { sku: 'a', available: 5, reserved: 2 },
      { sku: 'b', available: 1, reserved: 3 },
      { sku: 'c', available: 4, reserved: 4 },
    ]);
    const docs = await c.find({ $expr: { $gt: ['$available', '$reserved'] } }).toArray();
    expect(docs.map((d) => d.sku)).toEqual(['a']);
    const n = await c.countDocuments({ $expr: { $gte: [{ $subtract: ['$available', '$reserved'] }, 0] } });
    expect(n).toBe(2);
  });

  feature('elemMatch', async () => {
    const c = coll('elem_match');
    await c.insertMany([
      {
        n: 1,
        reservations: [
          { order_id: 'o1', qty: 1 },
          { order_id: 'o2', qty: 5 },
        ],
      },
      { n: 2, reservations: [{ order_id: 'o1', qty: 5 }] },
    ]);
    const docs = await c
      .find({ reservations: { $elemMatch: { order_id: 'o1', qty: { $gte: 2 } } } })
      .toArray();
    expect(docs.map((d) => d.n)).toEqual([2]);
    // Without $elemMatch the conditions may match different elements (document 1 too).
    expect(await c.countDocuments({ 'reservations.order_id': 'o1', 'reservations.qty': { $gte: 2 } })).toBe(
      2,
    );
    const projected = await c.findOne(
      { n: 1 },
      { projection: { _id: 0, reservations: { $elemMatch: { order_id: 'o2' } } } },
    );
    expect(projected).toEqual({ reservations: [{ order_id: 'o2', qty: 5 }] });
  });

  feature('sortLimitTieBreak', async () => {
    const c = coll('sort_tiebreak');
    const day = new Date('2025-01-01T00:00:00Z');
    // 9 documents, 3 distinct timestamps: the _id decides within a timestamp.
    await c.insertMany(
      Array.from({ length: 9 }, (_, i) => ({
        _id: `id-${i}`,
        createdAt: new Date(day.getTime() + Math.floor(i / 3) * 1000),
      })),
    );
    const page1 = await c.find({}).sort({ createdAt: -1, _id: 1 }).limit(4).toArray();
    expect(page1.map((d) => d._id)).toEqual(['id-6', 'id-7', 'id-8', 'id-3']);
    const last = page1[page1.length - 1];
    if (!last) throw new Error('first page is empty');
    // Keyset pagination continuing after the last (createdAt, _id).
    const page2 = await c
      .find({
        $or: [{ createdAt: { $lt: last.createdAt } }, { createdAt: last.createdAt, _id: { $gt: last._id } }],
      })
      .sort({ createdAt: -1, _id: 1 })
      .limit(4)
      .toArray();
    expect(page2.map((d) => d._id)).toEqual(['id-4', 'id-5', 'id-0', 'id-1']);
    const skipped = await c.find({}).sort({ createdAt: -1, _id: 1 }).skip(8).limit(4).toArray();
    expect(skipped.map((d) => d._id)).toEqual(['id-2']);
  });

  feature('countDocuments', async () => {
    const c = coll('count_docs');
    await c.insertMany(Array.from({ length: 25 }, (_, i) => ({ i, even: i % 2 === 0 })));
    expect(await c.countDocuments({})).toBe(25);
    expect(await c.countDocuments({ even: true })).toBe(13);
    expect(await c.countDocuments({ i: { $gte: 10 } }, { skip: 5, limit: 5 })).toBe(5);
    expect(await coll('count_docs_missing').countDocuments({})).toBe(0);
  });

  feature('estimatedDocumentCount', async () => {
    const c = coll('est_count');
    await c.insertMany(Array.from({ length: 17 }, (_, i) => ({ i })));
    await c.deleteOne({ i: 0 });
    expect(await c.estimatedDocumentCount()).toBe(16);
  });

  feature('readPreference', async () => {
    const c = coll('read_pref');
    await c.insertOne({ x: 1 }, { writeConcern: { w: 'majority' } });
    const hello = await client.db('admin').command({ hello: 1 });
    expect(Array.isArray(hello.hosts) && hello.hosts.length).toBeGreaterThanOrEqual(3);
    // Which member served each read: command monitoring on a second client.
    const monitored = new MongoClient(MONGO_URL as string, { monitorCommands: true, serverSelectionTimeoutMS: 10_000, runtimeAdapters: { os } });
    const served: Record<string, string> = {};
    monitored.on('commandStarted', (e) => {
      if (e.commandName === 'find') served[String((e.command as Document).comment)] = e.address;
    });
    try {
      const m = monitored.db(DB_NAME).collection<AnyDoc>('read_pref');
      // A fresh client knows only the members it has heard from yet, and a secondary's staleness
      // only after its heartbeats: wait until a secondary is selectable before the measured read.
      await m.find({}, { readPreference: ReadPreference.SECONDARY, comment: 'warm-up' }).toArray();
      await new Promise((r) => setTimeout(r, 1500));
      const secondary = new ReadPreference('secondaryPreferred', undefined, { maxStalenessSeconds: 90 });
      // the insert may not have reached the member picked yet: count what it served, not what it held
      await m.find({}, { readPreference: secondary, comment: 'secondary' }).toArray();
      expect(await m.find({}, { readPreference: ReadPreference.PRIMARY, comment: 'primary' }).toArray()).toHaveLength(1);
    } finally {
      await monitored.close();
    }
    expect(served['primary']).toBe(hello.primary);
    expect(hello.hosts).toContain(served['secondary']);
    expect(served['secondary']).not.toBe(hello.primary);
  });

  feature('writeConcernMajority', async () => {
    const c = coll('write_concern', { writeConcern: { w: 'majority', wtimeoutMS: 10_000 } });
    const r1 = await c.insertOne({ x: 1 });
    expect(r1.acknowledged).toBe(true);
    // A causally consistent session: the secondary read waits until that member has the write
    // (afterClusterTime), so read-your-majority-writes holds even on a lagging secondary.
    const session = client.startSession({ causalConsistency: true });
    try {
      const r2 = await c.updateOne({ x: 1 }, { $set: { y: 1 } }, { session, writeConcern: { w: 'majority', journal: true } });
      expect(r2.modifiedCount).toBe(1);
      const fromSecondary = await db
        .collection<AnyDoc>('write_concern', { readConcern: { level: 'majority' } })
        .findOne({ x: 1 }, { session, readPreference: ReadPreference.SECONDARY });
      expect(fromSecondary?.['y']).toBe(1);
    } finally {
      await session.endSession();
    }
    expect((await c.deleteOne({ x: 1 })).deletedCount).toBe(1);
  });

  feature('hint', async () => {
    const c = coll('hint_idx');
    await c.createIndex({ cat: 1, price: 1 }, { name: 'cat_price' });
    await c.createIndex({ price: 1 }, { name: 'price_only' });
    await c.insertMany(Array.from({ length: 40 }, (_, i) => ({ cat: i % 4, price: i * 10 })));
    const docs = await c.find({ cat: 1, price: { $gte: 100 } }).hint('cat_price').sort({ price: 1 }).toArray();
    expect(docs.map((d) => d['price'])).toEqual([130, 170, 210, 250, 290, 330, 370]);
    expectIxscan(await c.find({ cat: 1 }).hint('cat_price').explain(), 'cat_price');
    expect(await c.countDocuments({ cat: 2 }, { hint: 'cat_price' })).toBe(10);
  });

  feature('collModValidator', async () => {
    const name = 'collmod_validator';
    await db.createCollection(name, { validator: { $jsonSchema: { bsonType: 'object', required: ['a'] } } });
    await db.command({ collMod: name, validator: { $jsonSchema: { bsonType: 'object', required: ['a', 'b'] } }, validationLevel: 'strict' });
    await coll(name).insertOne({ a: 1, b: 2 });
    await expectServerError(coll(name).insertOne({ a: 1 }), 121);
  });

  feature('updateManyPositional', async () => {
    const c = coll('update_many_positional');
    await c.insertMany([
      { _id: 'p1', ancestors: [{ _id: 'root', name: 'Old' }, { _id: 'x', name: 'X' }] },
      { _id: 'p2', ancestors: [{ _id: 'y', name: 'Y' }, { _id: 'root', name: 'Old' }] },
      { _id: 'p3', ancestors: [{ _id: 'z', name: 'Z' }] },
    ]);
    const r = await c.updateMany({ 'ancestors._id': 'root' }, { $set: { 'ancestors.$.name': 'New' } });
    expect(r.modifiedCount).toBe(2);
    const docs = await c.find({}).sort({ _id: 1 }).toArray();
    expect(docs.map((d) => (d['ancestors'] as { name: string }[]).map((a) => a.name))).toEqual([['New', 'X'], ['Y', 'New'], ['Z']]);
  });

  feature('nullMatchesMissing', async () => {
    const c = coll('null_missing');
    await c.insertMany([{ _id: 'a', deleted_at: null }, { _id: 'b' }, { _id: 'c', deleted_at: new Date() }]);
    const ids = (await c.find({ deleted_at: null }).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(ids).toEqual(['a', 'b']);
  });

  feature('updateManyPullCondition', async () => {
    const c = coll('update_many_pull');
    await c.insertMany([
      { _id: 's1', pending: [{ id: 'a', seq: 1 }, { id: 'b', seq: 2 }, { id: 'c', seq: 3 }] },
      { _id: 's2', pending: [{ id: 'd', seq: 1 }, { id: 'e', seq: 5 }] },
      { _id: 's3', pending: [{ id: 'f', seq: 9 }] },
    ]);
    const r = await c.updateMany({ 'pending.seq': { $lte: 2 } }, upd({ $pull: { pending: { seq: { $lte: 2 } } } }));
    expect(r.matchedCount).toBe(2);
    expect(r.modifiedCount).toBe(2);
    const docs = await c.find({}).sort({ _id: 1 }).toArray();
    expect(docs.map((d) => (d['pending'] as { id: string }[]).map((p) => p.id))).toEqual([['c'], ['e'], ['f']]);
  });

  // Last on purpose: the TTL documents were written in beforeAll, so the (up to 60 s)
  // wait for the TTL monitor overlaps with every other test instead of adding to them.
  feature(
    'ttlIndex',
    async () => {
      const startedAt = await ttlSetup;
      const c = coll('ttl_idx');
      const idx = (await c.listIndexes().toArray()).find((i) => i.name === 'expire_at');
      expect(idx?.expireAfterSeconds).toBe(0);
      while (Date.now() - startedAt < TTL_WAIT_MS) {
        if ((await c.countDocuments({ _id: 'expired' })) === 0) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      const left = (await c.find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)).sort();
      if (left.includes('expired')) {
        throw new Error(`TTL monitor did not delete the expired document within ${TTL_WAIT_MS} ms`);
      }
      expect(left).toEqual(['alive', 'no-date']);
      console.log(`TTL: expired document deleted ${Date.now() - startedAt} ms after insert`);
    },
    TTL_WAIT_MS + 30_000,
  );
});
