import { afterAll, beforeAll } from 'vitest';
import { startCluster, type Cluster } from '../scripts/pg-cluster.mjs';

/**
 * One throwaway PostgreSQL cluster for the calling test file: started before its tests (initdb
 * and a server start take seconds on a busy machine, more than the default hook timeout) and
 * stopped after them. Read its members inside tests or hooks, once it has started.
 */
export function usePgCluster(): Pick<Cluster, 'port' | 'createDatabase'> & {
  fresh(prefix: string, template?: string): Promise<string>;
} {
  let cluster: Cluster | undefined;
  let n = 0;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);
  const started = () => {
    if (!cluster) throw new Error('the PostgreSQL cluster is not started yet: use it inside a test or hook');
    return cluster;
  };
  return {
    get port() {
      return started().port;
    },
    createDatabase: (name, template) => started().createDatabase(name, template),
    /** A fresh database named `<prefix>_<n>`, empty or a copy of `template`: its URL. */
    fresh: (prefix, template) => started().createDatabase(`${prefix}_${++n}`, template),
  };
}
