import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROFILES } from './chaos/plan';
import { runChaos } from './chaos/run';
import { ROOT } from './stack';

/**
 * The short chaos run (`npm run chaos` profile short) as part of the suite: private servers, every
 * service as processes, a seeded checkout storm while processes, Kafka, Cassandra and the MongoDB
 * primary are killed and a process is paused past the session timeout; then every invariant is
 * checked from the databases. CHAOS_SEED replays a run.
 */
describe('chaos (short run)', () => {
  it('keeps every invariant through kills, pauses, an election and poison', async () => {
    const seed = Number(process.env['CHAOS_SEED'] ?? 20261122);
    const report = await runChaos({ seed, profile: PROFILES.short, log: (line) => process.stdout.write(`${line}\n`) });
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    writeFileSync(join(ROOT, 'dist', 'chaos-short.json'), `${JSON.stringify(report, null, 2)}\n`);
    expect(report.invariants.filter((i) => !i.ok)).toEqual([]);
    expect(report.storm.accepted).toBeGreaterThan(100);
  }, 30 * 60_000);
});
