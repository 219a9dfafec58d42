/**
 * Outbox entries the relay parked (the broker can never accept them as they are; ADR 0005):
 *   npm run outbox:parked -- <database> <collection>[,<collection>...]            list them and why
 *   npm run outbox:parked -- <database> <collection>[,...] --requeue [<_id>...]   retry them (all, or these documents)
 * e.g. `npm run outbox:parked -- inventory reservations,stock`. MongoDB from MONGO_URL (default: the local replica set).
 */
import { createMongoClient } from '@mw/persistence';
import { listParked, requeueParked } from '../src/outbox/outbox-parked';

async function main(): Promise<void> {
  const [dbName, collections, flag, ...ids] = process.argv.slice(2);
  if (!dbName || !collections || (flag !== undefined && flag !== '--requeue')) {
    console.error('usage: npm run outbox:parked -- <database> <collection>[,<collection>...] [--requeue [<_id>...]]');
    process.exit(2);
  }
  const url = process.env['MONGO_URL'] ?? 'mongodb://127.0.0.1:27217,127.0.0.1:27218,127.0.0.1:27219/?replicaSet=rs0';
  const client = await createMongoClient(url).connect();
  try {
    const db = client.db(dbName);
    const names = collections.split(',');
    if (flag === '--requeue') {
      const n = await requeueParked(db, names, ids.length > 0 ? ids : undefined);
      console.log(`requeued ${n} document(s); the relay retries them on its next pass`);
    } else {
      for (const d of await listParked(db, names)) {
        const [first, ...waiting] = d.entries;
        console.log(JSON.stringify({ collection: d.collection, _id: d._id, parked: first, waiting_behind_it: waiting.length }));
      }
    }
  } finally {
    await client.close();
  }
}

main().catch((e: unknown) => {
  console.error((e as Error).message);
  process.exit(1);
});
