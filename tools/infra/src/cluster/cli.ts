/**
 * `npm run cluster -- <command>` — the cluster topology (ADR 0062), beside and independent of the
 * single node of `npm run infra:*` (other ports, other addresses, .infra/cluster). Needs root.
 */
import { formatError, InfraError } from '../errors';
import { formatTable } from '../local';
import { loadClusterConfig, type ClusterConfig } from './config';
import { clusterEnv, clusterStatus, downCluster, resolveHost, upCluster } from './cluster';
import { rejoin, setLink, split } from './netns';

const USAGE = `usage: npm run cluster -- <command>
  up             the bridge mw-br0, nine namespaces (198.18.0.0/24) and in them 3 Kafka brokers,
                 3 Cassandra nodes and a 3-member replica set; waits until each is ready
  down           stops them and removes every mw- namespace and the bridge (idempotent)
  status         each host: pid, link, whether its client port answers
  env            the client variables (KAFKA_BROKERS, …) as export lines
  cut <host>     takes the host's link down: it keeps running, nobody reaches it (e.g. mongodb-1)
  heal <host>    brings the link up again
  split <host> <peer,…>   cuts the host off from those peers only (blackhole routes both ways);
                 everyone else still reaches both sides (e.g. split mongodb-1 mongodb-2,mongodb-3)
  rejoin <host> <peer,…>  heals a split`;

const say = (who: string, message: string): void => {
  process.stdout.write(`[${who}] ${message}\n`);
};

async function status(cfg: ClusterConfig): Promise<number> {
  const rows = (await clusterStatus(cfg)).map((s) => ({
    host: s.host.name,
    address: s.host.address,
    pid: s.pid,
    link: s.link,
    answers: s.reachable ? 'yes' : 'no',
  }));
  process.stdout.write(`${formatTable(rows, ['host', 'address', 'pid', 'link', 'answers'])}\n`);
  return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, target, peerList] = argv;
  const cfg = loadClusterConfig();
  switch (command) {
    case 'up': {
      const result = await upCluster(cfg, say);
      say('cluster', `ready in ${result.seconds.toFixed(0)} s; clients: eval "$(npm run -s cluster -- env)"`);
      return 0;
    }
    case 'down':
      await downCluster(cfg, say);
      return 0;
    case 'status':
      return status(cfg);
    case 'env':
      for (const [k, v] of Object.entries(clusterEnv(cfg))) process.stdout.write(`export ${k}='${v}'\n`);
      return 0;
    case 'cut':
    case 'heal': {
      if (!target)
        throw new InfraError(`${command} needs a host name, e.g. npm run cluster -- ${command} kafka-1`);
      const host = resolveHost(target);
      setLink(host, command === 'cut' ? 'down' : 'up');
      say(host.name, command === 'cut' ? `cut off (${host.address})` : `healed (${host.address})`);
      return 0;
    }
    case 'split':
    case 'rejoin': {
      if (!target || !peerList)
        throw new InfraError(
          `${command} needs a host and its peers, e.g. npm run cluster -- ${command} mongodb-1 mongodb-2,mongodb-3`,
        );
      const host = resolveHost(target);
      const peers = peerList.split(',').map((p) => resolveHost(p.trim()));
      if (command === 'split') split(host, peers);
      else rejoin(host, peers);
      say(
        host.name,
        `${command === 'split' ? 'split from' : 'rejoined'} ${peers.map((p) => p.name).join(', ')}`,
      );
      return 0;
    }
    default:
      process.stdout.write(`${USAGE}\n`);
      return command === undefined || command === 'help' ? 0 : 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`cluster: ${formatError(err)}\n`);
      process.exitCode = 1;
    },
  );
}
