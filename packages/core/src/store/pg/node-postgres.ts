import { createRequire } from 'node:module';
import type pgModule from 'pg';

/**
 * node-postgres, loaded here once. While loading, it asks whether it runs in a Cloudflare
 * Worker: where the runtime has no `navigator` (Node 20; Node 21 and later have one), it builds
 * a `new Response(…)` to find out, which loads Node's whole fetch implementation — ~12 ms of
 * every command on PostgreSQL (measured with --cpu-prof on `shop approve`). A `navigator` that
 * names Node, as later Nodes have, answers the question at once; it is taken away again after.
 */
function load(): typeof pgModule {
  const require = createRequire(import.meta.url);
  if ('navigator' in globalThis) return require('pg') as typeof pgModule;
  Object.defineProperty(globalThis, 'navigator', {
    value: { userAgent: `Node.js/${process.versions.node}` },
    configurable: true,
  });
  try {
    return require('pg') as typeof pgModule;
  } finally {
    delete (globalThis as { navigator?: unknown }).navigator;
  }
}

const pg = load();
export default pg;
