import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/scale-out.md derives server counts from the committed benchmark results (issue 20: "the
 * scale-out document's numbers are traceable to committed results"). Each measured figure it quotes
 * is listed here with the file and field it comes from: a re-run benchmark that changes a figure
 * fails this spec until the document is brought up to date with it.
 */
const root = join(__dirname, '../../..');
const doc = readFileSync(join(root, 'docs/scale-out.md'), 'utf8');
const json = (file: string): unknown => JSON.parse(readFileSync(join(root, file), 'utf8'));

function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);
}

/** The checkout run the sizing uses: the previous host's (Intel Xeon); ordersNow is the latest host's (2026-11-30, results.json then). */
const orders = 'apps/orders/bench/history/2026-11-28-0e8680a.json';
const ordersNow = 'apps/orders/bench/history/2026-11-30-08070ab.json';
/** The current host's run before the sale rode with the confirmation (same host, the code of cd13c35). */
const ordersBefore = 'apps/orders/bench/history/2026-11-29-cd13c35.json';
const catalog = 'apps/catalog/bench/results.json';
const inventory = 'apps/inventory/bench/results.json';
/** The cluster topology (issue 32) and the single node in the same form, the same day. */
const cluster = 'apps/orders/bench/results-cluster.json';
const single = 'apps/orders/bench/ab/2026-11-29-outbox-stream.json';
const row = (inFlight: number, c: string, s: string, cCpu: string, sCpu: string): string =>
  `| ${String(inFlight).padEnd(9)} | ${c.padEnd(19)} | ${s.padEnd(11)} | ${cCpu.padEnd(26)} | ${sCpu.padEnd(11)} |`;
const clusterRows: readonly (readonly [number, number])[] = [
  [16, 0],
  [64, 1],
];

/** [as the document writes it, file, field, how the field's value is written]. */
const quoted: readonly (readonly [string, string, string, (v: number) => string])[] = [
  ['21.5 checkouts/s', orders, 'bare_loop.mongo_members_3.checkouts_per_s', (v) => `${v} checkouts/s`],
  ['did 12.5/s', ordersBefore, 'bare_loop.run_2_mongo_members_3.checkouts_per_s', (v) => `did ${v}/s`],
  ['does 61.1/s', ordersNow, 'bare_loop.run_2_mongo_members_3.checkouts_per_s', (v) => `does ${v}/s`],
  [
    '2 inserts + 16 updates\nin its bare loop',
    ordersNow,
    'bare_loop.run_2_mongo_members_3.per_checkout_ops.mongo.update',
    (v) => `2 inserts + ${v} updates\nin its bare loop`,
  ],
  ['48.4 confirmed/s', ordersNow, 'results.5.confirmed_per_s', (v) => `${v} confirmed/s`],
  ['1.079 of it', orders, 'ratio_service_to_bare.mongo_members_3', (v) => `${v} of it`],
  [
    '2 inserts + 23 updates',
    orders,
    'bare_loop.mongo_members_3.per_checkout_ops.mongo.insert',
    (v) => `${v} inserts + 23 updates`,
  ],
  [
    '2 inserts + 23 updates',
    orders,
    'bare_loop.mongo_members_3.per_checkout_ops.mongo.update',
    (v) => `2 inserts + ${v} updates`,
  ],
  [
    '5 queries + 0 commands',
    orders,
    'bare_loop.mongo_members_3.per_checkout_ops.mongo.queries',
    (v) => `${v} queries + 0 commands`,
  ],
  [
    '| 11, of them 2 LWT',
    orders,
    'bare_loop.mongo_members_3.per_checkout_ops.cassandra_writes',
    (v) => `| ${v}, of them 2 LWT`,
  ],
  ['| 9 / 13 ', orders, 'bare_loop.mongo_members_3.per_checkout_ops.kafka_messages', (v) => `| ${v} / 13 `],
  ['23.2/s at 256 in flight', orders, 'results.2.confirmed_per_s', (v) => `${v}/s at 256 in flight`],
  ['services reach 32.1/s', orders, 'results.5.confirmed_per_s', (v) => `services reach ${v}/s`],
  [
    '0.084 CPU-seconds per checkout',
    orders,
    'results.2.cpu_seconds_per_checkout.total_servers_and_services',
    (v) => `${v.toFixed(3)} CPU-seconds per checkout`,
  ],
  [
    '298.4\nreservations/s over 1,000 products',
    inventory,
    'results.3.reservations_per_second',
    (v) => `${v}\nreservations/s over 1,000 products`,
  ],
  [
    '306.3/s on one hot product',
    inventory,
    'results.2.reservations_per_second',
    (v) => `${v}/s on one hot product`,
  ],
  [
    '8,804 req/s from Cassandra',
    catalog,
    'listing_first_page_20.cassandra.req_per_s',
    (v) => `${v.toLocaleString('en-US')} req/s from Cassandra`,
  ],
  [
    '1,903\nreq/s from MongoDB',
    catalog,
    'listing_first_page_20.mongodb.req_per_s',
    (v) => `${v.toLocaleString('en-US')}\nreq/s from MongoDB`,
  ],
  ['p99 5.0 ms', catalog, 'listing_first_page_20_offered.cassandra.p99_ms', (v) => `p99 ${v.toFixed(1)} ms`],
  [
    '= 3.2 s in the 10,000-event burst',
    catalog,
    'projector.applied_s',
    (v) => `= ${v.toFixed(1)} s in the 10,000-event burst`,
  ],
  // the cluster (the range of its three runs) beside the single node: one table row per level, each cell from its file
  ...clusterRows.flatMap(([inFlight, i]) => {
    const value = (file: string, field: string): unknown => at(json(file), field);
    const range = (field: string, write: (v: number) => string): string => {
      const values = value(cluster, `reproducibility.${i}.${field}.values`) as number[];
      return `${write(Math.min(...values))}–${write(Math.max(...values))}`;
    };
    const cells = (): [string, string, string, string] => [
      `${range('confirmed_per_s', String)}/s`,
      `${value(single, `results.${i}.confirmed_per_s`) as number}/s`,
      range('cpu_seconds_per_checkout', (v) => v.toFixed(3)),
      (value(single, `results.${i}.cpu_seconds_per_checkout.total_servers_and_services`) as number).toFixed(3),
    ];
    const text = row(inFlight, ...cells());
    return [
      [text, cluster, `reproducibility.${i}.concurrency`, (v: number) => row(v, ...cells())] as const,
      [text, single, `results.${i}.concurrency`, (v: number) => row(v, ...cells())] as const,
    ];
  }),
];

describe('docs/scale-out.md quotes the committed benchmark results', () => {
  it.each(
    quoted.map(
      ([text, file, field, write]) =>
        [`${text.replace(/\n/g, ' ')} ← ${file} ${field}`, text, file, field, write] as const,
    ),
  )('%s', (_name, text, file, field, write) => {
    expect(doc).toContain(text);
    const value = at(json(file), field);
    expect(typeof value).toBe('number');
    expect(write(value as number)).toBe(text);
  });
});
