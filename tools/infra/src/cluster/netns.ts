/** Creates, cuts, heals and removes the cluster's network (./topology.ts) with iproute2. Needs root (CAP_NET_ADMIN). */
import { spawnSync } from 'node:child_process';
import { InfraError } from '../errors';
import {
  BRIDGE,
  bridgeCommands,
  hostCommands,
  linkCommand,
  ownNamespaces,
  splitCommands,
  type NetHost,
} from './topology';

function ip(args: readonly string[]): { ok: boolean; output: string } {
  const res = spawnSync('ip', [...args], { encoding: 'utf8', timeout: 10_000 });
  if (res.error) {
    throw new InfraError(
      (res.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'ip (iproute2) not found on PATH: apt-get install iproute2'
        : `ip ${args.join(' ')}: ${res.error.message}`,
    );
  }
  return { ok: res.status === 0, output: `${res.stdout ?? ''}${res.stderr ?? ''}`.trim() };
}

function ipOrThrow(args: readonly string[]): string {
  const res = ip(args);
  if (!res.ok) {
    throw new InfraError(
      `ip ${args.join(' ')} failed: ${res.output}${/Operation not permitted/.test(res.output) ? ' (the cluster topology needs root: network namespaces)' : ''}`,
    );
  }
  return res.output;
}

const linkExists = (name: string): boolean => ip(['link', 'show', 'dev', name]).ok;

export function listOwnNamespaces(): string[] {
  return ownNamespaces(ip(['netns', 'list']).output);
}

/** The bridge and every host; a host that exists already (a previous `up`) is kept as it is. */
export function createNetwork(hosts: readonly NetHost[]): void {
  if (!linkExists(BRIDGE)) for (const args of bridgeCommands()) ipOrThrow(args);
  const existing = new Set(listOwnNamespaces());
  for (const host of hosts) {
    if (existing.has(host.namespace) && linkExists(host.namespace)) continue;
    if (existing.has(host.namespace)) ipOrThrow(['netns', 'delete', host.namespace]); // half-made by a crashed `up`
    for (const args of hostCommands(host)) ipOrThrow(args);
  }
}

/** Pids of the processes living in a namespace (only the tooling starts processes in its namespaces). */
export function namespacePids(namespace: string): number[] {
  const res = ip(['netns', 'pids', namespace]);
  return res.ok ? res.output.split(/\s+/).filter(Boolean).map(Number) : [];
}

/** Every `mw-` namespace (deleting a namespace deletes its veth pair) and the bridge. Idempotent. */
export function removeNetwork(): string[] {
  const removed: string[] = [];
  for (const ns of listOwnNamespaces()) {
    ipOrThrow(['netns', 'delete', ns]);
    removed.push(ns);
  }
  if (linkExists(BRIDGE)) {
    ipOrThrow(['link', 'delete', BRIDGE]);
    removed.push(BRIDGE);
  }
  return removed;
}

/** Removes these hosts' namespaces (and so their veth pairs) only; idempotent. */
export function removeHosts(hosts: readonly NetHost[]): void {
  const existing = new Set(listOwnNamespaces());
  for (const h of hosts) if (existing.has(h.namespace)) ipOrThrow(['netns', 'delete', h.namespace]);
}

/** `down` isolates the host from every other host and from the root namespace; `up` heals it. */
export function setLink(host: NetHost, state: 'up' | 'down'): void {
  ipOrThrow(linkCommand(host, state));
}

/**
 * Cuts `host` off from `peers` only (./topology.ts splitCommands); idempotent: a route already there
 * is kept. Returns how many routes it added.
 */
export function split(host: NetHost, peers: readonly NetHost[]): number {
  let added = 0;
  for (const args of splitCommands(host, peers, 'add')) {
    const res = ip(args);
    if (res.ok) added++;
    else if (!/File exists/.test(res.output))
      throw new InfraError(`ip ${args.join(' ')} failed: ${res.output}`);
  }
  return added;
}

/** Heals a split; idempotent (a route already gone is fine). */
export function rejoin(host: NetHost, peers: readonly NetHost[]): void {
  for (const args of splitCommands(host, peers, 'del')) {
    const res = ip(args);
    if (!res.ok && !/No such process|not found/i.test(res.output))
      throw new InfraError(`ip ${args.join(' ')} failed: ${res.output}`);
  }
}

/** The blackhole routes in a host's namespace (addresses it is split from). */
export function splitFrom(host: NetHost): string[] {
  const res = ip(['-n', host.namespace, 'route', 'show', 'type', 'blackhole']);
  return res.ok
    ? [...res.output.matchAll(/blackhole (\S+)/g)].map((m) => (m[1] ?? '').replace(/\/32$/, ''))
    : [];
}

export function linkIsUp(host: NetHost): boolean {
  const res = ip(['-o', 'link', 'show', 'dev', host.namespace]);
  return res.ok && /[<,]UP[,>]/.test(res.output);
}

/** argv that runs `command` inside the host's namespace (`ip netns exec` execs it: the pid is the command's). */
export function inNamespace(
  host: NetHost,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  return { command: 'ip', args: ['netns', 'exec', host.namespace, command, ...args] };
}

/**
 * Which of `targets` (address:port) accept a TCP connection from inside `from`'s namespace, each
 * tried for at most `timeoutSeconds` (bash's /dev/tcp: one process per probe round, no client library).
 */
export function reachableFrom(from: NetHost, targets: readonly string[], timeoutSeconds = 2): Set<string> {
  const script = targets
    .map((t) => {
      const [address, port] = t.split(':');
      return `timeout ${timeoutSeconds} bash -c 'exec 3<>/dev/tcp/${address}/${port}' 2>/dev/null && echo ${t}`;
    })
    .join('\n');
  const res = spawnSync('ip', ['netns', 'exec', from.namespace, 'bash', '-c', script], {
    encoding: 'utf8',
    timeout: (timeoutSeconds + 1) * 1000 * Math.max(1, targets.length),
  });
  return new Set((res.stdout ?? '').split('\n').filter(Boolean));
}
