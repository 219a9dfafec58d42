/**
 * Local infrastructure for development and tests, without Docker.
 *
 *   npm run infra:up [-- kafka cassandra mongodb keycloak prometheus zipkin]   start (idempotent: running servers are left alone)
 *   npm run infra:down [-- kafka ...]                        stop exactly the processes infra started (pid files)
 *   npm run infra:status                                     table of servers, pids, readiness, versions, logs
 *   npm run infra:env                                        `export KAFKA_BROKERS=... OIDC_ISSUER=... OIDC_AUDIENCE=...`
 *
 * INFRA=local|containers|external selects the provider (default: containers when a Docker engine
 * answers, else local). Ports: KAFKA_PORT, CASSANDRA_PORT, MONGO_PORT, KEYCLOAK_PORT, ... (see config.ts).
 */
import { loadConfig, type InfraConfig } from './config';
import { InfraError, displayPath, formatError } from './errors';
import { checkExternal, externalEnv } from './external';
import { downOne, formatTable, localEnv, statusOne, upAll, type Logger } from './local';
import { defaultServers, parseServerNames } from './registry';
import type { ServerName } from './types';

const USAGE = `usage: tsx tools/infra/src/cli.ts <up|down|status|env> [kafka|cassandra|mongodb|keycloak|prometheus|zipkin ...]
  up      start the servers (default: all six) and wait until they answer
  down    stop the servers infra started
  status  show servers, pids, readiness, versions and log files
  env     print export lines with the connection variables
  smoke   Kafka produce+consume and Cassandra create/insert/select against the running servers
  nodetool <args>  Cassandra's nodetool against the local node (JMX on localhost), e.g. \`nodetool compactionstats\`
  compose-acls  print the Kafka ACL script of the compose kafka-init job (tools/infra/kafka/compose-acls.sh)
  compose-shards  print the mongosh script of the sharded overlay's init job (tools/infra/mongo/compose-shard-init.js)`;

const progress: Logger = (name, message) => process.stderr.write(`[${name}] ${message}\n`);

function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

async function up(cfg: InfraConfig, names: ServerName[]): Promise<number> {
  if (cfg.mode === 'external') {
    const env = await checkExternal(cfg, names);
    out(
      `INFRA=external: all reachable (${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')})`,
    );
    return 0;
  }
  if (cfg.mode === 'containers') {
    const { upContainers } = await import('./containers');
    const env = await upContainers(cfg, names, progress);
    for (const [k, v] of Object.entries(env)) out(`${k}=${v}`);
    return 0;
  }
  const started = Date.now();
  const { results, failures } = await upAll(cfg, names, progress);
  if (results.length > 0) {
    out(
      formatTable(
        results.map((r) => ({
          server: r.name,
          result: r.action === 'started' ? `started in ${r.seconds.toFixed(1)}s` : 'already running',
          pid: String(r.pid),
          version: r.version,
          connection: `${r.envVar}=${r.connection}`,
        })),
        ['server', 'result', 'pid', 'version', 'connection'],
      ),
    );
  }
  for (const f of failures) process.stderr.write(`infra up ${f.name}: ${formatError(f.error)}\n`);
  if (failures.length === 0)
    out(
      `infra up: ready in ${((Date.now() - started) / 1000).toFixed(1)}s (INFRA=local, ${displayPath(cfg.root, cfg.infraDir)}/)`,
    );
  return failures.length === 0 ? 0 : 1;
}

async function down(cfg: InfraConfig, names: ServerName[]): Promise<number> {
  if (cfg.mode === 'external') {
    out('INFRA=external: nothing to stop');
    return 0;
  }
  if (cfg.mode === 'containers') {
    const { downContainers } = await import('./containers');
    downContainers(names, progress);
    return 0;
  }
  const settled = await Promise.allSettled(names.map((name) => downOne(cfg, name, progress)));
  let code = 0;
  settled.forEach((s, i) => {
    const name = names[i];
    if (s.status === 'rejected') {
      code = 1;
      process.stderr.write(`infra down ${name}: ${formatError(s.reason)}\n`);
    } else if (s.value.result === 'not-running') {
      out(`${name}: not running`);
    } else {
      out(
        `${name}: ${s.value.result === 'killed' ? 'killed' : 'stopped'} pid ${s.value.pid} in ${s.value.seconds.toFixed(1)}s`,
      );
    }
  });
  return code;
}

async function status(cfg: InfraConfig, names: ServerName[]): Promise<number> {
  if (cfg.mode === 'containers') {
    const { containerStatus } = await import('./containers');
    out(
      formatTable(
        containerStatus(names).map((r) => ({ ...r, mode: 'containers' })),
        ['server', 'mode', 'state', 'ports'],
      ),
    );
    return 0;
  }
  if (cfg.mode === 'external') {
    const env = externalEnv(cfg, names);
    let reachable = true;
    try {
      await checkExternal(cfg, names);
    } catch {
      reachable = false;
    }
    out(
      `INFRA=external (${reachable ? 'reachable' : 'NOT reachable'}): ${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')}`,
    );
    return reachable ? 0 : 1;
  }
  const rows = await Promise.all(names.map((name) => statusOne(cfg, name)));
  out(
    formatTable(
      rows.map((r) => ({ ...r })),
      ['server', 'mode', 'port', 'pid', 'state', 'version', 'log'],
    ),
  );
  return 0;
}

const shellQuote = (value: string): string =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

async function env(cfg: InfraConfig, names: ServerName[]): Promise<number> {
  let vars: Record<string, string>;
  if (cfg.mode === 'external') vars = externalEnv(cfg, names);
  else if (cfg.mode === 'local') vars = await localEnv(cfg, names);
  else {
    process.stderr.write(
      'INFRA=containers: ports are assigned at start; use ensureInfra() or `infra:up` output\n',
    );
    return 1;
  }
  out(
    `export ${Object.entries(vars)
      .map(([k, v]) => `${k}=${shellQuote(v)}`)
      .join(' ')}`,
  );
  return 0;
}

async function smoke(cfg: InfraConfig, names: ServerName[]): Promise<number> {
  if (cfg.mode === 'containers') {
    process.stderr.write('smoke: not available with INFRA=containers (ports are assigned at start)\n');
    return 1;
  }
  const vars = cfg.mode === 'external' ? externalEnv(cfg, names) : await localEnv(cfg, names);
  const { smokeCassandra, smokeKafka } = await import('./smoke');
  let code = 0;
  for (const name of names) {
    try {
      if (name === 'kafka') out(await smokeKafka(vars['KAFKA_BROKERS'] ?? ''));
      else if (name === 'cassandra')
        out(
          await smokeCassandra(
            vars['CASSANDRA_CONTACT_POINTS'] ?? '',
            vars['CASSANDRA_LOCAL_DATACENTER'] ?? cfg.cassandraDatacenter,
          ),
        );
      else out(`${name}: no smoke test here`);
    } catch (err) {
      code = 1;
      process.stderr.write(`smoke ${name}: ${formatError(err)}\n`);
    }
  }
  return code;
}

/** Cassandra's nodetool on the local node, with this checkout's jars and JMX port; its exit code. */
async function nodetool(cfg: InfraConfig, args: readonly string[]): Promise<number> {
  if (cfg.mode !== 'local') {
    process.stderr.write(`nodetool: only for INFRA=local (this is ${cfg.mode})\n`);
    return 1;
  }
  const { spawnSync } = await import('node:child_process');
  const { cassandraLayout, nodetoolArgs } = await import('./servers/cassandra');
  const { javaBinary } = await import('./servers/jvm');
  const layout = cassandraLayout(cfg.infraDir);
  const r = spawnSync(javaBinary(), nodetoolArgs(layout, cfg.ports.cassandraJmx, args), { stdio: 'inherit' });
  if (r.error) throw new InfraError(`nodetool: ${r.error.message}`);
  return r.status ?? 1;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'compose-acls') {
    const { composeAclScript } = await import('./servers/kafka-security');
    process.stdout.write(composeAclScript());
    return 0;
  }
  if (command === 'compose-shards') {
    const { composeShardInitScript } = await import('@mw/persistence');
    process.stdout.write(composeShardInitScript());
    return 0;
  }
  if (command === 'nodetool') return nodetool(loadConfig(), rest);
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    out(USAGE);
    return command === undefined ? 2 : 0;
  }
  const commands: Record<string, (cfg: InfraConfig, names: ServerName[]) => Promise<number>> = {
    up,
    down,
    status,
    env,
    smoke,
  };
  const run = commands[command];
  if (!run) {
    process.stderr.write(`unknown command "${command}"\n${USAGE}\n`);
    return 2;
  }
  const cfg = loadConfig();
  const names: ServerName[] =
    command === 'smoke' && rest.length === 0
      ? ['kafka', 'cassandra']
      : rest.length === 0
        ? defaultServers(cfg)
        : parseServerNames(rest);
  // INFRA_EXTERNAL servers are not this checkout's to start, stop or report in local mode
  const own = cfg.mode === 'local' ? names.filter((n) => !cfg.externalServers.includes(n)) : names;
  return run(cfg, own);
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`infra: ${formatError(err)}\n`);
      if (!(err instanceof InfraError) && process.env['DEBUG'] !== '1')
        process.stderr.write('(run with DEBUG=1 for the stack trace)\n');
      process.exitCode = 1;
    },
  );
}
