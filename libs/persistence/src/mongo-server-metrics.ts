import type { MongoClient } from 'mongodb';
import { Counter, Gauge, type Registry } from 'prom-client';
import { createMongoClient } from './mongo-client';

/**
 * mongod's own figures on the service's /metrics (docs/adr/0011): per replica-set member, from
 * `replSetGetStatus` (health, replication lag) and each member's `serverStatus` (opcounters,
 * opLatencies) over a direct connection to it. The maintained mongodb_exporter is a Go binary
 * that cannot be fetched here, so the services that use MongoDB report these themselves; every
 * one of them sees the same members, and the alert rules read them with max by (member).
 * Read at scrape time only (one round per scrape), never in the request path.
 */

export interface MemberStatus {
  readonly name: string;
  readonly health: number;
  readonly stateStr: string;
  readonly optimeDate?: Date;
}

export interface MemberRow {
  readonly member: string;
  readonly healthy: boolean;
  readonly primary: boolean;
  /** Seconds behind the primary's last applied operation; undefined without a primary or an optime. */
  readonly lagSeconds: number | undefined;
}

/** Health and lag of each member from `replSetGetStatus.members`: lag = primary optime − member optime. */
export function memberRows(members: readonly MemberStatus[]): MemberRow[] {
  const primary = members.find((m) => m.stateStr === 'PRIMARY');
  return members.map((m) => ({
    member: m.name,
    healthy: m.health === 1,
    primary: m.stateStr === 'PRIMARY',
    lagSeconds:
      primary?.optimeDate && m.optimeDate && m.health === 1
        ? Math.max(0, (primary.optimeDate.getTime() - m.optimeDate.getTime()) / 1000)
        : undefined,
  }));
}

/** The URL of one member (direct connection), keeping the credentials and options of the set's URL. */
export function memberUrl(setUrl: string, member: string): string {
  const match = /^(mongodb:\/\/(?:[^@/]*@)?)([^/?]+)(\/[^?]*)?(\?.*)?$/.exec(setUrl.trim());
  if (!match) throw new Error(`not a mongodb:// URL: ${setUrl.replace(/\/\/[^@/]+@/, '//***@')}`);
  const params = new URLSearchParams((match[4] ?? '').replace(/^\?/, ''));
  params.delete('replicaSet');
  params.delete('readPreference');
  params.set('directConnection', 'true');
  return `${match[1]}${member}${match[3] ?? '/'}?${params.toString()}`;
}

interface ServerStatus {
  opcounters?: Record<string, number>;
  opLatencies?: Record<string, { latency?: number; ops?: number }>;
}

interface Snapshot {
  readonly members: MemberRow[];
  readonly status: Map<string, ServerStatus>;
}

/** A counter whose values are the server's own totals, per member, read at each scrape. */
function serverTotals<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  label: L,
  snapshot: () => Promise<Snapshot>,
  values: (status: ServerStatus) => [string, number][],
): Counter<'member' | L> {
  return new Counter<'member' | L>({
    name,
    help,
    labelNames: ['member', label],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [member, status] of (await snapshot()).status)
        for (const [key, value] of values(status))
          this.inc({ member, [label]: key } as Record<'member' | L, string>, value);
    },
  });
}

export class MongoServerMetrics {
  private readonly members = new Map<string, MongoClient>();
  private cached: { readonly at: number; readonly result: Promise<Snapshot> } | undefined;

  constructor(
    private readonly client: MongoClient,
    private readonly setUrl: string,
    registry: Registry,
  ) {
    const snapshot = (): Promise<Snapshot> => this.snapshot();
    new Gauge({
      name: 'mongodb_replset_member_health',
      help: 'replSetGetStatus health of each member (1 reachable from the primary, 0 not)',
      labelNames: ['member'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const m of (await snapshot()).members) this.set({ member: m.member }, m.healthy ? 1 : 0);
      },
    });
    new Gauge({
      name: 'mongodb_replset_member_lag_seconds',
      help: "Seconds between the primary's last applied operation and this member's",
      labelNames: ['member'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const m of (await snapshot()).members)
          if (m.lagSeconds !== undefined) this.set({ member: m.member }, m.lagSeconds);
      },
    });
    new Gauge({
      name: 'mongodb_replset_member_primary',
      help: '1 for the member that is primary',
      labelNames: ['member'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const m of (await snapshot()).members) this.set({ member: m.member }, m.primary ? 1 : 0);
      },
    });
    serverTotals(
      registry,
      'mongodb_opcounters_total',
      'serverStatus opcounters per member',
      'type',
      snapshot,
      (st) => Object.entries(st.opcounters ?? {}),
    );
    serverTotals(
      registry,
      'mongodb_op_latency_microseconds_total',
      'serverStatus opLatencies: total latency per member and kind',
      'op',
      snapshot,
      (st) => Object.entries(st.opLatencies ?? {}).map(([op, l]) => [op, l.latency ?? 0]),
    );
    serverTotals(
      registry,
      'mongodb_op_latency_ops_total',
      'serverStatus opLatencies: operations per member and kind',
      'op',
      snapshot,
      (st) => Object.entries(st.opLatencies ?? {}).map(([op, l]) => [op, l.ops ?? 0]),
    );
  }

  async close(): Promise<void> {
    await Promise.all([...this.members.values()].map((c) => c.close().catch(() => undefined)));
    this.members.clear();
  }

  private snapshot(now = Date.now()): Promise<Snapshot> {
    if (!this.cached || now - this.cached.at >= 1000)
      this.cached = { at: now, result: this.read().catch(() => ({ members: [], status: new Map() })) };
    return this.cached.result;
  }

  private async read(): Promise<Snapshot> {
    const rs = (await this.client.db('admin').command({ replSetGetStatus: 1 })) as {
      members?: MemberStatus[];
    };
    const members = memberRows(rs.members ?? []);
    const status = new Map<string, ServerStatus>();
    await Promise.all(
      members
        .filter((m) => m.healthy)
        .map(async (m) => {
          const s = await this.member(m.member)
            .db('admin')
            .command({ serverStatus: 1, repl: 0, metrics: 0, locks: 0, wiredTiger: 0, tcmalloc: 0 })
            .catch(() => undefined);
          if (s) status.set(m.member, s as ServerStatus);
        }),
    );
    return { members, status };
  }

  private member(name: string): MongoClient {
    let client = this.members.get(name);
    if (!client) {
      client = createMongoClient(memberUrl(this.setUrl, name), {
        appName: 'metrics',
        maxPoolSize: 1,
        serverSelectionTimeoutMS: 2000,
      });
      this.members.set(name, client);
    }
    return client;
  }
}
