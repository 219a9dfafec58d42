/**
 * Contract between the infra CLI (`tools/infra/src/cli.ts`) and each local server
 * definition (`tools/infra/src/servers/*.ts`). A server definition knows how to
 * install itself (idempotently, reusing caches), which command runs it, how to tell
 * that it is ready and what version it is. The CLI owns processes: spawning detached,
 * pid files, log files, stopping exactly what it started.
 */
export type ServerName = 'kafka' | 'cassandra' | 'mongodb' | 'keycloak' | 'prometheus' | 'zipkin';

export interface InfraContext {
  /** Repository root (absolute). */
  readonly root: string;
  /** Gitignored folder holding data, logs, pid files and downloaded artefacts: `<root>/.infra`. */
  readonly infraDir: string;
  /** Progress line for the user (already prefixed with the server name by the CLI). */
  log(message: string): void;
  /** Aborted once nobody waits for readiness any more (the process died): waiting loops stop. */
  readonly signal?: AbortSignal;
}

export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

export interface LocalServer {
  readonly name: ServerName;
  /** Main client port (configurable through the environment, see config.ts). */
  readonly port: number;
  /** Other ports the server binds (e.g. a controller or inter-node port); checked for foreign listeners before starting. */
  readonly auxPorts?: readonly number[];
  /** Idempotent: resolves jars / binaries / venvs into ctx.infraDir, formats storage once. */
  install(ctx: InfraContext): Promise<void>;
  /** How to run the server in the foreground; the CLI detaches it and redirects output to its log. */
  launch(ctx: InfraContext): Promise<LaunchSpec>;
  /** Resolves when a real client request succeeds; rejects with an actionable message after timeoutMs. */
  waitReady(ctx: InfraContext, timeoutMs: number): Promise<void>;
  /** Optional one-time step after the first readiness (e.g. replica-set initiation). */
  afterStart?(ctx: InfraContext): Promise<void>;
  /** Optional idempotent step after every start and every `up` of a running server (e.g. Kafka's topics and ACLs). */
  reconcile?(ctx: InfraContext): Promise<void>;
  /** Server version as reported by the server itself, e.g. "Apache Kafka 3.9.1". */
  version(ctx: InfraContext): Promise<string>;
  /** Connection string for clients, exported to tests/services as an env var, and any other variables clients need (credentials). */
  readonly connection: {
    readonly envVar: string;
    readonly value: string;
    readonly extraEnv?: Readonly<Record<string, string>>;
  };
}
