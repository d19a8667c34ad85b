/** Types of scripts/pg-cluster.mjs (a throwaway PostgreSQL cluster for tests and the bench). */
export interface Cluster {
  /** The cluster's `postgres` database, superuser `shop`, on 127.0.0.1. */
  url: string;
  port: number;
  dir: string;
  /** Creates a database, empty or a copy of `template` (nobody connected to it), and returns its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  /** Stops the server (immediate) and removes its folder. */
  stop(): Promise<void>;
}
export function pgBinDir(): string;
export function startCluster(opts?: { parent?: string; port?: number; maxConnections?: number }): Promise<Cluster>;
