import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isTopicName, kafkaAclTable, servicePrincipals, topicsOf, type ServicePrincipal, type TopicName } from '@mw/contracts';

/**
 * The Kafka ACLs (ADR 0009) are derived from `topicAccess` in libs/contracts; this spec reads each
 * service's production code and checks the table says exactly what the code does: the topics it
 * creates messages for (`createMessage('<topic>'`) and the topics its handlers consume
 * (`runner.run('<topic>'` / `runner.runBatch('<topic>'` or a constant naming one). A new producer or consumer without its row
 * in the table — which would be refused by the broker — fails here first.
 */
const root = join(__dirname, '../../..');

/** Where each principal's code lives: the projector is its own process inside apps/catalog. */
const sources: Record<ServicePrincipal, { dir: string; exclude?: string }> = {
  catalog: { dir: 'apps/catalog/src', exclude: 'apps/catalog/src/projection' },
  'catalog-projector': { dir: 'apps/catalog/src/projection' },
  inventory: { dir: 'apps/inventory/src' },
  carts: { dir: 'apps/carts/src' },
  orders: { dir: 'apps/orders/src' },
};

function productionFiles(dir: string, exclude?: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir))) {
    const path = join(dir, entry);
    if (exclude !== undefined && path === exclude) continue;
    if (statSync(join(root, path)).isDirectory()) {
      if (!['test', 'e2e'].includes(entry)) out.push(...productionFiles(path, exclude));
    } else if (entry.endsWith('.ts') && !/\.(int-)?spec\.ts$|\.test-d\.ts$/.test(entry)) {
      out.push(path);
    }
  }
  return out;
}

function observedTopics(files: readonly string[]): { produces: TopicName[]; consumes: TopicName[] } {
  const text = files.map((f) => readFileSync(join(root, f), 'utf8')).join('\n');
  const constants = new Map([...text.matchAll(/const ([A-Z_]+) = '([a-z0-9.]+)'/g)].map((m) => [m[1], m[2]]));
  const named = (literal: string | undefined, constant: string | undefined): string | undefined => literal ?? constants.get(constant ?? '');
  const produces = [...text.matchAll(/createMessage\(\s*(?:'([a-z0-9.]+)'|([A-Z_]+))/g)].map((m) => named(m[1], m[2]));
  const consumes = [...text.matchAll(/runner\.run(?:Batch)?\(\s*(?:'([a-z0-9.]+)'|([A-Z_]+))/g)].map((m) => named(m[1], m[2]));
  const topics = (names: (string | undefined)[]): TopicName[] =>
    [...new Set(names)].filter((t): t is TopicName => t !== undefined && isTopicName(t)).sort();
  return { produces: topics(produces), consumes: topics(consumes) };
}

describe('the Kafka access table matches what each service does', () => {
  it.each(servicePrincipals)('%s produces and consumes exactly its topics of the table', (principal) => {
    const { dir, exclude } = sources[principal];
    const files = productionFiles(dir, exclude);
    expect(files.length).toBeGreaterThan(0);
    const table = topicsOf(principal);
    expect(observedTopics(files)).toEqual({ produces: [...table.produces].sort(), consumes: [...table.consumes].sort() });
  });

  it('gives each registry topic exactly one writer among the services, and nobody but the writer and ops a WRITE on it', () => {
    const writers = new Map<string, Set<string>>();
    for (const e of kafkaAclTable()) {
      if (e.resource !== 'topic' || e.pattern !== 'literal' || e.permission !== 'allow' || !['write', 'all'].includes(e.operation)) continue;
      if (!isTopicName(e.name)) continue;
      writers.set(e.name, new Set([...(writers.get(e.name) ?? []), e.principal]));
    }
    expect(Object.fromEntries([...writers].map(([t, ps]) => [t, [...ps].sort()]))).toEqual({
      'catalog.products.v1': ['catalog', 'ops'],
      'catalog.categories.v1': ['catalog', 'ops'],
      'inventory.commands.v1': ['ops', 'orders'],
      'inventory.events.v1': ['inventory', 'ops'],
      'carts.checkout.v1': ['carts', 'ops'],
      'orders.orders.v1': ['ops', 'orders'],
    });
  });
});
